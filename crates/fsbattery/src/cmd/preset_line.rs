//! The one line a run under `--suite` starts with: the preset's method and conditions as this
//! run applies them, so nobody learns from a footer, after the run, that touch was timed as
//! one child process per file or that nothing was dropped from the cache.

use fsbattery_core::runner::Plan;
use fsbattery_record::settings::Chosen;

/// "suite piszcz2006 (title): metadata as commands; tree, stream, split native; cache none;
/// pause 0.1 s; no memory limit"; a value a flag chose instead of the suite names the flag.
pub fn line(plan: &Plan) -> String {
    let s = &plan.settings;
    let by = |c: &Chosen| match c.source.starts_with("--") {
        true => format!(" ({})", c.source),
        false => String::new(),
    };
    let mut methods: Vec<(String, Vec<&str>)> = Vec::new();
    for w in &s.workloads {
        let m = match w.source.as_str() {
            "--method" => format!("{} (--method)", w.method),
            _ => w.method.clone(),
        };
        match methods.iter_mut().find(|(x, _)| *x == m) {
            Some((_, names)) => names.push(&w.workload),
            None => methods.push((m, vec![&w.workload])),
        }
    }
    let methods: Vec<String> = methods
        .iter()
        .map(|(m, names)| match m.starts_with("commands") {
            true => format!("{} as {m}", names.join(", ")),
            false => format!("{} {m}", names.join(", ")),
        })
        .collect();
    let mut parts = vec![
        methods.join("; "),
        format!("cache {}{}", s.cache.value, by(&s.cache)),
        format!("pause {}{}", s.pause.value, by(&s.pause)),
    ];
    parts.push(match &plan.memory {
        Some(m) => format!(
            "memory {} ({})",
            fsbattery_core::units::format_bytes(m.limit_bytes),
            m.source
        ),
        None => "no memory limit".into(),
    });
    let suites_own = s.fs_options.iter().filter(|o| !o.source.starts_with("--"));
    let mut opts: Vec<String> = suites_own
        .filter(|o| !o.value.is_empty())
        .map(|o| format!("{} {}={}", o.target, o.key, o.value))
        .collect();
    opts.dedup();
    if !opts.is_empty() {
        parts.push(format!("the suite's {}", opts.join(", ")));
    }
    let title = match plan.suite.title.as_str() {
        "" => String::new(),
        t => format!(" ({t})"),
    };
    format!("suite {}{title}: {}", plan.suite.name, parts.join("; "))
}
