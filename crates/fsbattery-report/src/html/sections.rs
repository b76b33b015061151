//! The page's result sections: summary, comparison, per-test and CPU charts, and the raw
//! matrices (the all-tests heat-map is `heatmap`, the answer and its composite `answer`).
//!
//! Role: arrange [`Data`] into HTML. Invariants: only ordinary test lines (not iozone, not
//! latency) appear here; a pending row or a failed cell is shown with its word and reason;
//! S1's total time only uses tests measured on every column, because a target that failed a
//! test would otherwise look faster.

use super::charts::{bar_chart, Bar, BarChart, BarState};
use super::data::{Data, Line};
use super::{esc, figure, swatch};
use crate::format;
use crate::matrix::Entry;
use fsbattery_stats::{Aggregate, Better, Mark, Outcome, RowVerdict, Verdict};

/// The significance level of every verdict on the page (a run record carries none).
const ALPHA: f64 = fsbattery_stats::DEFAULT_ALPHA;

/// Summary: per run, the winner of each test; then the composites across every column.
pub(crate) fn summary(d: &Data<'_>) -> String {
    let mut out = format!(
        "<p>Best of each test by the {} of its runs. Each test ends in one of three verdicts. \
         A <strong>winner</strong> is significantly better than every other target (Welch's \
         t-test, α = {ALPHA}, Holm-adjusted over the comparisons with the best, at least 3 runs \
         each), given with its ratio to the next best and that ratio's CI. \
         <strong>Equivalent</strong>: every other target is significantly worse or shown \
         equivalent to the best within ±{margin}&nbsp;% (TOST equivalence test, Holm-adjusted). \
         <strong>Undecided</strong>: some target is neither, too noisy to tell; the noisiest is \
         named with its CI and the repeats that would decide it. The p given is the one behind \
         the verdict. Rows whose values describe each target rather than measure it (space \
         available) are n/a.</p>\n",
        d.aggregate,
        margin = fsbattery_stats::DEFAULT_MARGIN_PCT
    );
    let names: Vec<String> = d.columns.iter().map(|c| c.name.clone()).collect();
    let excluded: Vec<bool> = d.columns.iter().map(|c| c.reference).collect();
    if let Some(note) = crate::reference::note(&names, &excluded) {
        out.push_str(&format!("<p class=\"note reference\">{}</p>\n", esc(&note)));
    }
    for (ri, run) in d.runs.iter().enumerate() {
        out.push_str(&format!(
            "<div class=\"run-summary\" data-run=\"{}\">",
            esc(&run.label)
        ));
        if d.runs.len() > 1 {
            out.push_str(&format!("<h3>{}</h3>", esc(&run.label)));
        }
        for l in crate::io500::notes(run.record) {
            let class = if l.contains("INVALID") {
                "note io500 invalid"
            } else {
                "note io500"
            };
            out.push_str(&format!("<p class=\"{class}\">{}</p>", esc(&l)));
        }
        out.push_str(&winners(d, ri));
        out.push_str("</div>\n");
    }
    out.push_str("<h3>Total time</h3>\n<div class=\"chart-grid\">");
    out.push_str(&total_time(d));
    out.push_str(
        "</div>\n<p class=\"note\">Total time: S1's sum of every time test, shown as the 2006 \
        study summed it. It is not the composite: long tests dominate it and it carries no \
        uncertainty, so no bar is marked best. The composite that ranks the targets is in \
        <a href=\"#answer\">the answer</a>.</p>\n",
    );
    out.push_str(&not_scored(d));
    out
}

/// The tests left out of every composite because targets cannot be ranked on them.
fn not_scored(d: &Data<'_>) -> String {
    let names: Vec<String> = d
        .tests()
        .filter(|l| l.pending.is_none() && !l.comparable)
        .map(|l| esc(&l.label))
        .collect();
    if names.is_empty() {
        return String::new();
    }
    format!(
        "<p class=\"note not-scored\">Not in the total or the score (n/a: the values describe each \
         target, such as the size it was given, not its filesystem): {}.</p>\n",
        names.join(", ")
    )
}

fn winners(d: &Data<'_>, run: usize) -> String {
    let cols = d.run_columns(run);
    let mut out = String::from(
        "<div class=\"table-wrap\"><table class=\"winners\"><thead><tr><th>Test</th><th>Winner</th>\
         <th>Value</th><th>Runner-up</th><th>Margin</th><th>Significance</th></tr></thead><tbody>\n",
    );
    for line in d.tests() {
        out.push_str(&winner_row(d, line, &cols));
    }
    for t in d.iozone() {
        let mut wins = vec![0usize; d.columns.len()];
        for (_, l) in &t.points {
            if let Some(b) = d.verdict(l, &cols).winner() {
                wins[b] += 1;
            }
        }
        let top = cols
            .iter()
            .copied()
            .max_by_key(|c| (wins[*c], usize::MAX - c));
        let cell = match top.filter(|c| wins[*c] > 0) {
            Some(c) => format!(
                "{}{} <span class=\"note\">— significantly best at {} of {} record sizes</span>",
                swatch(&d.columns[c].colour),
                esc(&d.columns[c].target),
                wins[c],
                t.points.len()
            ),
            None => "no significant winner at any record size".into(),
        };
        out.push_str(&format!(
            "<tr data-test=\"{}/{}\"><th scope=\"row\">{} <span class=\"note\">({})</span></th>\
             <td colspan=\"5\">{cell}</td></tr>\n",
            esc(&t.workload),
            esc(&t.test),
            esc(&t.label),
            esc(&t.workload)
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// " (p=0.042)", or " (p<0.001)" where three decimals would print a misleading zero.
fn p_text(p: f64) -> String {
    if p < 0.001 {
        " (p&lt;0.001)".into()
    } else {
        format!(" (p={p:.3})")
    }
}

fn winner_row(d: &Data<'_>, line: &Line, cols: &[usize]) -> String {
    let head = format!("<th scope=\"row\">{}</th>", esc(&line.label));
    let attrs = format!(
        "data-test=\"{}/{}\"",
        esc(&line.workload),
        esc(&line.metric)
    );
    let nodata = |why: &str| {
        format!("<tr class=\"nodata\" {attrs}>{head}<td colspan=\"5\">{why}</td></tr>\n")
    };
    if let Some(reason) = &line.pending {
        return format!(
            "<tr class=\"pending\" {attrs}>{head}<td colspan=\"5\">pending: {}</td></tr>\n",
            esc(reason)
        );
    }
    if !line.comparable {
        return nodata("n/a — the values describe each target, not comparable across targets");
    }
    let v = d.verdict(line, cols);
    let bound = cols.iter().filter(|&&c| line.tool_bound[c]).count();
    let (Some(w), Some(r)) = (v.best, v.runner_up) else {
        if bound > 0 {
            // Tool-bound cells sat out the verdict: say so rather than "one target measured".
            return nodata(&format!(
                "not ranked: {bound} cell(s) {}",
                format::TOOL_BOUND
            ));
        }
        return nodata(match v.best {
            Some(_) => v.describe(),
            None => "no measured value",
        });
    };
    let name = |c: usize| {
        format!(
            "{}{}",
            swatch(&d.columns[c].colour),
            esc(&d.columns[c].target)
        )
    };
    let (wv, rv) = (
        line.value_at(w).unwrap_or(0.0),
        line.value_at(r).unwrap_or(0.0),
    );
    let unit = esc(&line.unit);
    let winner = match v.outcome {
        Outcome::Winner(_) => name(w) + &best_journaling(d, line, cols, w),
        Outcome::Equivalent => {
            let tied: Vec<String> = cols
                .iter()
                .filter(|c| v.mark(**c) == Mark::Equivalent)
                .map(|c| name(*c))
                .collect();
            format!("<span class=\"tie\">equivalent:</span> {}", tied.join(", "))
        }
        Outcome::Undecided => format!(
            "{} <span class=\"note\">(best value; undecided)</span>",
            name(w)
        ),
        _ => format!(
            "{} <span class=\"note\">(best value, no verdict)</span>",
            name(w)
        ),
    };
    let margin = margin(wv, rv);
    // The sentence names the columns in plain text; the p in it is the one behind the verdict.
    let plain = |c: usize| esc(&d.columns[c].target);
    let words = crate::verdict_text::sentence(&v, &plain).replace('<', "&lt;");
    let sig = match v.outcome {
        Outcome::Winner(_) => format!("<span class=\"sig\">significant</span>: {words}"),
        Outcome::Equivalent | Outcome::Undecided => words,
        _ => "not enough samples (n &lt; 3)".into(),
    };
    format!(
        "<tr {attrs}>{head}<td data-label=\"Winner\">{winner}</td><td class=\"num\" data-label=\"Value\">{} {unit}</td>\
         <td data-label=\"Runner-up\">{} <span class=\"note\">{} {unit}</span></td>\
         <td class=\"num\" data-label=\"Margin\">{margin}</td><td data-label=\"Significance\">{sig}</td></tr>\n",
        format::num(wv),
        name(r),
        format::num(rv)
    )
}

/// How far the winner is from the runner-up, in % of the runner-up ("-" when that is 0).
fn margin(wv: f64, rv: f64) -> String {
    if rv == 0.0 {
        return "-".into();
    }
    let dir = if wv < rv { "lower" } else { "higher" };
    format!("{:.1}% {dir}", ((wv - rv) / rv * 100.0).abs())
}

/// Where a filesystem without a journal wins, S2 also names the significant winner among the
/// journaling ones (empty when there is none).
fn best_journaling(d: &Data<'_>, line: &Line, cols: &[usize], winner: usize) -> String {
    if d.columns[winner].journaling {
        return String::new();
    }
    let journaling: Vec<usize> = cols
        .iter()
        .copied()
        .filter(|c| d.columns[*c].journaling)
        .collect();
    let Some(j) = d.verdict(line, &journaling).winner() else {
        return String::new();
    };
    format!(
        "<br><span class=\"note\">best journaling: {}{} ({} {})</span>",
        swatch(&d.columns[j].colour),
        esc(&d.columns[j].target),
        format::num(line.value_at(j).unwrap_or(0.0)),
        esc(&line.unit)
    )
}

/// Test lines every column measured, for the composites.
fn complete<'d>(d: &'d Data<'_>, only_time: bool) -> Vec<&'d Line> {
    d.tests()
        .filter(|l| l.pending.is_none() && l.comparable && (!only_time || l.unit == "s"))
        .filter(|l| l.value.iter().all(|e| matches!(e, Entry::Measured(_))))
        .collect()
}

fn plain_bars(d: &Data<'_>, values: &[f64], best: Option<usize>) -> Vec<Bar> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| Bar {
            label: d.columns[i].name.clone(),
            colour: d.columns[i].colour.clone(),
            state: BarState::Value {
                v: *v,
                ci: None,
                n: None,
                note: None,
            },
            best: best == Some(i),
        })
        .collect()
}

/// S1's composite: the sum of every time test, per column.
fn total_time(d: &Data<'_>) -> String {
    let lines = complete(d, true);
    if lines.is_empty() {
        return "<p class=\"note\">Total time: no time test was measured on every target.</p>"
            .into();
    }
    let totals: Vec<f64> = (0..d.columns.len())
        .map(|c| lines.iter().filter_map(|l| l.value_at(c)).sum())
        .collect();
    let chart = BarChart {
        kind: "total",
        test: "total-time".into(),
        title: format!(
            "Total time of {} tests, seconds, lower is better",
            lines.len()
        ),
        axis: "seconds, summed over the tests — lower is better".into(),
        bars: plain_bars(d, &totals, None),
    };
    let sub = format!(
        "sum of the {} of {} time tests measured on every target",
        d.aggregate,
        lines.len()
    );
    figure("total-time", "Total time", &sub, &bar_chart(&chart))
}

/// One bar per column from matrix entries; a significant winner's value is printed bold.
pub(crate) fn bars(
    d: &Data<'_>,
    (entries, agg): (&[Entry], Aggregate),
    verdict: &RowVerdict,
) -> Vec<Bar> {
    let value = |s: &fsbattery_stats::Summary, note: Option<String>| BarState::Value {
        v: s.aggregate(agg),
        ci: s.ci95_half_width.map(|h| (s.mean, h)),
        n: Some(s.n),
        note,
    };
    let empty = |w: &str, r: &str| BarState::Empty {
        word: w.into(),
        reason: r.into(),
        failed: false,
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| Bar {
            label: d.columns[i].name.clone(),
            colour: d.columns[i].colour.clone(),
            state: match e {
                Entry::Measured(s) => value(s, None),
                Entry::Incomplete(Some(s)) => value(s, Some("incomplete".into())),
                Entry::Incomplete(None) => {
                    empty("incomplete", "interrupted before any repeat finished")
                }
                Entry::Failed(r) => BarState::Empty {
                    word: "failed".into(),
                    reason: r.clone(),
                    failed: true,
                },
                Entry::Pending(r) => empty("pending", r),
                Entry::Missing => empty("not run", "planned but no sample was recorded"),
                Entry::NotApplicable => empty("n/a", "this test does not apply to this target"),
            },
            best: verdict.mark(i) == Mark::Winner,
        })
        .collect()
}

/// A bar chart per test (S1's first set) or the CPU % chart per test (S1's third set).
pub(crate) fn per_test(d: &Data<'_>, cpu: bool) -> String {
    let lines: Vec<&Line> = d
        .tests()
        .filter(|l| l.pending.is_none() && (!cpu || has_cpu(l)))
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut out = if cpu {
        "<p>CPU utilisation of the measured phase, (user + sys) ÷ elapsed × 100, as S1 reports it; \
         rows without a timed phase of their own (sizes, rates) have none. \
         Whiskers: 95% confidence interval of the mean; n: samples.</p>\n"
            .to_string()
    } else {
        format!(
            "<p>Bars: the {} of each target's runs. Whiskers: 95% confidence interval of the mean \
             (Student t); n: samples. A value in bold is significantly better than every other \
             target's (Welch's t-test, α = {ALPHA}).</p>\n",
            d.aggregate
        )
    };
    out.push_str("<div class=\"chart-grid\">\n");
    for l in lines {
        let key = format!("{}/{}", l.workload, l.metric);
        let dir = if l.better == Better::Lower || cpu {
            "lower is better"
        } else {
            "higher is better"
        };
        let unit = if cpu { "CPU %" } else { l.unit.as_str() };
        let chart = BarChart {
            kind: if cpu { "cpu" } else { "bar" },
            test: key.clone(),
            title: format!("{}: {unit} per target, {dir}", l.label),
            axis: format!("{unit} — {dir}"),
            bars: if cpu {
                // CPU % is shown, never ranked.
                bars(d, (&l.cpu, l.aggregate), &RowVerdict::none(d.columns.len()))
            } else {
                bars(d, (&l.value, l.aggregate), &l.verdict)
            },
        };
        let file = format!("{}-{key}", if cpu { "cpu" } else { "bar" });
        out.push_str(&figure(
            &file,
            &l.label,
            &format!("{unit}, {dir}"),
            &bar_chart(&chart),
        ));
    }
    out.push_str("</div>\n");
    if !cpu {
        out.push_str(&pending_note(d));
    }
    out
}

/// Whether any column has a CPU entry: rows of sizes and rates have none.
fn has_cpu(l: &Line) -> bool {
    l.cpu
        .iter()
        .any(|e| !matches!(e, Entry::Missing | Entry::NotApplicable))
}

fn pending_note(d: &Data<'_>) -> String {
    let pending: Vec<String> = d
        .tests()
        .filter_map(|l| {
            l.pending
                .as_ref()
                .map(|r| format!("{} ({})", esc(&l.label), esc(r)))
        })
        .collect();
    if pending.is_empty() {
        return String::new();
    }
    format!(
        "<p class=\"note pending-list\">Pending, no chart yet: {}.</p>\n",
        pending.join("; ")
    )
}

/// The comparison of every later run against the first, metric by metric.
pub(crate) fn comparison(d: &Data<'_>) -> String {
    if d.runs.len() < 2 {
        return String::new();
    }
    let base = &d.runs[0];
    let mut out = format!(
        "<p>Each metric of a later run against <strong>{}</strong>: ratio of means, change, and \
         Welch's t-test at α = {ALPHA}. “No significant difference” means the runs' spread cannot \
         tell them apart.</p>\n",
        esc(&base.label)
    );
    for new in &d.runs[1..] {
        out.push_str(&format!(
            "<h3>{} vs {}</h3>\n",
            esc(&new.label),
            esc(&base.label)
        ));
        out.push_str("<div class=\"table-wrap\"><table class=\"comparison\"><thead><tr><th>Test</th>\
            <th>Target</th><th>Base mean</th><th>New mean</th><th>Ratio</th><th>Change</th><th>Verdict</th></tr></thead><tbody>\n");
        let diffs = crate::comparable::differences(base.record, new.record);
        for r in crate::compare::build(base.record, new.record, ALPHA, &diffs) {
            let opt = |v: Option<f64>| v.map(format::num).unwrap_or_else(|| "-".into());
            let (mut verdict, class) = match (r.verdict, &r.note) {
                (_, Some(note)) => (esc(note), ""),
                (Some(v), None) => {
                    let p = r.p_value.map(p_text).unwrap_or_default();
                    let class = match v {
                        Verdict::Better => "verdict-better",
                        Verdict::Worse => "verdict-worse",
                        _ => "",
                    };
                    (format!("{}{p}", esc(&v.to_string())), class)
                }
                (None, None) => ("-".into(), ""),
            };
            if !r.differs.is_empty() {
                verdict.push_str(&format!(" ≠ {} differ", esc(&r.differs.join(", "))));
            }
            out.push_str(&format!(
                "<tr><th scope=\"row\">{}</th><td>{}</td><td class=\"num\">{} {u}</td><td class=\"num\">{} {u}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{class}\">{}</td></tr>\n",
                esc(&r.label),
                esc(&r.target),
                opt(r.base_mean),
                opt(r.new_mean),
                r.ratio.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into()),
                r.change_pct.map(|x| format!("{x:+.1}%")).unwrap_or_else(|| "-".into()),
                verdict,
                u = esc(&r.unit)
            ));
        }
        out.push_str("</tbody></table></div>\n");
    }
    out
}

/// The raw matrices: lower-is-better values, rates, CPU %; failures and pending rows listed.
pub(crate) fn matrices(d: &Data<'_>) -> String {
    let tests: Vec<&Line> = d.tests().collect();
    let (rates, values): (Vec<&Line>, Vec<&Line>) = tests
        .iter()
        .partition(|l| l.pending.is_none() && l.better == Better::Higher);
    let mut out = format!(
        "<p>The {} of each target's runs ± the CI95 half width (hover a cell for n and range). \
         <span class=\"best-mark\">Green, bold, *</span>: significantly better than every other \
         target (Welch's t-test, Holm-adjusted, α = {ALPHA}, n ≥ 3 on each side). \
         <span class=\"tied-mark\">≈</span>: shown equivalent to the best within ±{margin}&nbsp;% \
         (TOST equivalence test). <span class=\"tied-mark\">?</span>: undecided, too noisy to \
         tell from the best. No mark: significantly worse than the best, fewer than 3 runs, or a \
         row or target that is not ranked (CPU %, values that describe the target, a reference \
         in RAM). n/a: the \
         test does not apply to that target. Where a filesystem without a journal (ext2, tmpfs) \
         wins, the significant winner among journaling filesystems is marked too (outlined, “J”), \
         as S2 did.</p>\n",
        d.aggregate,
        margin = fsbattery_stats::DEFAULT_MARGIN_PCT
    );
    let ranked = d.runs.iter().any(|r| {
        r.record
            .cells
            .iter()
            .any(|c| crate::rank_spread::of(c).is_some())
    });
    if ranked {
        out.push_str(&format!(
            "<p class=\"rank-legend\">MPI {}.</p>\n",
            esc(crate::rank_spread::LEGEND)
        ));
    }
    out.push_str("<h3>Times and other lower-is-better values</h3>\n");
    out.push_str(&matrix_table(d, &values, "value", false));
    if !rates.is_empty() {
        out.push_str("<h3>Throughput and rates (higher is better)</h3>\n");
        out.push_str(&matrix_table(d, &rates, "throughput", false));
    }
    out.push_str("<h3>CPU % ((user + sys) ÷ elapsed)</h3>\n");
    let timed: Vec<&Line> = tests.iter().copied().filter(|l| has_cpu(l)).collect();
    out.push_str(&matrix_table(d, &timed, "cpu", true));
    out.push_str(&problems(d));
    out.push_str(&conditions_notes(d));
    out
}

fn matrix_table(d: &Data<'_>, lines: &[&Line], quantity: &str, cpu: bool) -> String {
    let mut out = format!(
        "<div class=\"table-wrap\"><table class=\"matrix\" data-quantity=\"{quantity}\"><thead><tr><th>Test</th>{}",
        if cpu { "" } else { "<th>Unit</th>" }
    );
    for c in &d.columns {
        out.push_str(&format!(
            "<th class=\"num\">{}{}</th>",
            swatch(&c.colour),
            esc(&c.name)
        ));
    }
    out.push_str("</tr></thead><tbody>\n");
    for l in lines {
        let pending = if l.pending.is_some() {
            " class=\"pending\""
        } else {
            ""
        };
        out.push_str(&format!(
            "<tr{pending} data-test=\"{}/{}\"><th scope=\"row\">{}</th>",
            esc(&l.workload),
            esc(&l.metric),
            esc(&l.label)
        ));
        if !cpu {
            out.push_str(&format!("<td class=\"unit\">{}</td>", esc(&l.unit)));
        }
        let none = RowVerdict::none(d.columns.len());
        let (entries, verdict, journaling) = if cpu {
            (&l.cpu, &none, None)
        } else {
            (&l.value, &l.verdict, l.best_journaling)
        };
        for (i, e) in entries.iter().enumerate() {
            let bound = !cpu && l.tool_bound[i];
            let mut td = matrix_cell(
                l.aggregate,
                e,
                verdict.mark(i),
                journaling == Some(i),
                bound,
            );
            if !cpu {
                td = with_spread(d, i, l, td);
            }
            // The precision was judged on the values, not on CPU %.
            out.push_str(&match cpu {
                true => td,
                false => unconverged_mark(d, i, &l.workload, td),
            });
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// Under MPI, the per-rank spread after the aggregate ("[min–max]", ranks and skew in the
/// tooltip); a cell of one process is left as it is.
fn with_spread(d: &Data<'_>, col: usize, l: &Line, td: String) -> String {
    let c = &d.columns[col];
    let cell = d.runs[c.run].record.cell(&c.target, &l.workload, &l.metric);
    let Some(s) = cell.and_then(crate::rank_spread::of) else {
        return td;
    };
    let span = format!(
        " <span class=\"rank-spread\" title=\"{}\">{}</span></td>",
        esc(&s.long()),
        esc(&s.short())
    );
    match td.strip_suffix("</td>") {
        Some(head) => format!("{head}{span}"),
        None => td,
    }
}

/// One table cell with its state as class and its detail as tooltip; the mark is also written
/// as text (`*`, `≈`) so it does not depend on colour, and so is a tool-bound cell.
pub(crate) fn matrix_cell(
    agg: Aggregate,
    e: &Entry,
    mark: Mark,
    journaling: bool,
    tool_bound: bool,
) -> String {
    let mut class = vec!["num"];
    let title = match e {
        Entry::Measured(s) | Entry::Incomplete(Some(s)) => format!(
            "n={}, mean {}, median {}, min {}, max {}",
            s.n,
            format::num(s.mean),
            format::num(s.median),
            format::num(s.min),
            format::num(s.max)
        ),
        Entry::Failed(r) => {
            class.push("failed");
            r.clone()
        }
        Entry::Pending(r) => {
            class.push("pending");
            r.clone()
        }
        Entry::Incomplete(None) => "interrupted before any repeat finished".into(),
        Entry::Missing => "planned but no sample was recorded".into(),
        Entry::NotApplicable => "this test does not apply to this target".into(),
    };
    match mark {
        Mark::Winner => class.push("best"),
        Mark::Equivalent => class.push("tied"),
        Mark::Undecided => class.push("undecided"),
        Mark::None => {}
    }
    let mut text = esc(&format::entry(e, agg));
    if mark != Mark::None {
        text.push_str(&format!(
            " <span class=\"mark\">{}</span>",
            format::mark(mark)
        ));
    }
    if journaling {
        class.push("best-journaling");
    }
    if tool_bound {
        class.push("tool-bound");
        text.push_str(&format!(
            " <span class=\"tool-bound\">{}</span>",
            format::TOOL_BOUND
        ));
    }
    format!(
        "<td class=\"{}\" title=\"{}\">{text}</td>",
        class.join(" "),
        esc(&title),
    )
}

fn problems(d: &Data<'_>) -> String {
    let mut items = Vec::new();
    for l in d.tests() {
        if let Some(r) = &l.pending {
            items.push(format!("<li>pending: {}: {}</li>", esc(&l.label), esc(r)));
            continue;
        }
        for (i, e) in l.value.iter().enumerate() {
            if let Entry::Failed(r) = e {
                items.push(format!(
                    "<li>failed: {} on {}: {}</li>",
                    esc(&l.label),
                    esc(&d.columns[i].name),
                    esc(r)
                ));
            }
        }
    }
    if items.is_empty() {
        return String::new();
    }
    format!(
        "<h3>Failed and pending</h3>\n<ul class=\"problems\">{}</ul>\n",
        items.join("\n")
    )
}

/// A value cell of a workload whose `--repeat auto` stopped at the maximum without the
/// precision gets the `~` mark inside it (kept out of [`matrix_cell`], which iozone and
/// latency tables share and which knows no workload).
fn unconverged_mark(d: &Data<'_>, col: usize, workload: &str, mut td: String) -> String {
    let c = &d.columns[col];
    let rec = d.runs[c.run].record;
    if crate::conditions::unconverged(rec, &c.target, workload) {
        let at = td.len() - "</td>".len();
        let mark = format!(
            " <span class=\"mark unconverged\" title=\"{}\">{}</span>",
            esc(&crate::conditions::legend(rec).unwrap_or_default()),
            crate::conditions::UNCONVERGED
        );
        td.insert_str(at, &mark);
    }
    td
}

/// `--repeat auto` decisions and aged filesystems of every run, one item each.
fn conditions_notes(d: &Data<'_>) -> String {
    let mut items = Vec::new();
    for run in &d.runs {
        let prefix = match d.runs.len() {
            1 => String::new(),
            _ => format!("{}: ", run.label),
        };
        for n in crate::conditions::notes(run.record) {
            items.push(format!("<li>{}</li>", esc(&format!("{prefix}{n}"))));
        }
    }
    if items.is_empty() {
        return String::new();
    }
    format!(
        "<h3>Repeats and aging</h3>\n<ul class=\"conditions\">{}</ul>\n",
        items.join("\n")
    )
}
