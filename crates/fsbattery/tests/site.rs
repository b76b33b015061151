//! `fsbattery site` over a store of three real runs, loaded from disk in headless Chromium:
//! the index holds a trend chart per series, the search box filters the page, there is no
//! script error, and nothing refers to the network. The browse pages (machine, filesystem,
//! kernel, suite) and one page per run are written.
//!
//! Needs chromium (apt-get install chromium): skipped with a reason when missing, a failure
//! when FSBATTERY_REQUIRE_PRIVILEGED=1.

#[path = "../../fsbattery-report/tests/common/chromium.rs"]
mod chromium;
mod common;

use chromium::{chromium, wait_for_chromium};
use common::{bin, code, stderr, stdout};
use std::path::Path;
use std::process::Stdio;

/// After the page's own script: type a run's directory name into the search box and record
/// how many runs-table rows stay visible.
const PROBE: &str = r#"<script>
(function(){var s=document.getElementById('search');s.value='zz-run-1';
s.dispatchEvent(new Event('input'));var shown=0;
document.querySelectorAll('tr.searchable').forEach(function(r){if(r.style.display!=='none')shown++;});
document.documentElement.setAttribute('data-shown',String(shown));})();
</script>"#;

const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--dump-dom",
];

/// (the dumped DOM, chromium's stderr); killed after a minute.
fn load(browser: &Path, dir: &Path, page: &Path) -> (String, String) {
    let mut child = std::process::Command::new(browser)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("file://{}", page.display()))
        .stdout(std::fs::File::create(dir.join("dom")).unwrap())
        .stderr(std::fs::File::create(dir.join("log")).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .expect("start chromium");
    wait_for_chromium(&mut child);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    (read("dom"), read("log"))
}

#[test]
fn the_site_over_three_runs_renders_in_chromium_with_its_charts() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("results.db");
    for i in 0..3 {
        let extra = ["--no-ceiling", "--store", db.to_str().unwrap()];
        let o = common::metadata_run_with(work.path(), &format!("zz-run-{i}"), 50, 3, &extra);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let out = work.path().join("site");
    let o = bin()
        .arg("site")
        .arg(&out)
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("pages written"), "{}", stdout(&o));
    for page in [
        "index.html",
        "machine-0.html",
        "fs-0.html",
        "kernel-0.html",
        "suite-0.html",
        "run-1.html",
    ] {
        assert!(out.join(page).is_file(), "{page} written");
    }
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    // Six metadata metrics, one series each over the three runs.
    assert_eq!(
        index.matches("<svg class=\"trend\"").count(),
        6,
        "one chart per series"
    );
    assert!(
        !index.contains("https://") && !index.contains("src=\"http"),
        "no network"
    );

    let Some(browser) = chromium() else {
        common::gate(
            "the site in a browser",
            &["chromium (apt-get install chromium)"],
        );
        return;
    };
    let probed = out.join("probed.html");
    std::fs::write(
        &probed,
        index.replace("</body>", &format!("{PROBE}</body>")),
    )
    .unwrap();
    let (dom, log) = load(&browser, work.path(), &probed);
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("Uncaught") || l.contains(":CONSOLE"))
        .collect();
    assert!(errors.is_empty(), "script errors: {errors:#?}");
    assert_eq!(
        dom.matches("<svg class=\"trend\"").count(),
        6,
        "charts in the DOM"
    );
    assert!(dom.contains("<circle class=\"point\""), "points drawn");
    assert!(
        dom.contains("data-shown=\"1\""),
        "the search left one run shown:\n{}",
        &dom[..dom.len().min(600)]
    );
}
