//! The HTML report in a real browser: headless Chromium loads the page from a file (no
//! network), runs its script, and the dumped DOM must hold every chart, no script error, and
//! a working PNG export. A planted script error proves the error check itself works. A
//! screenshot is kept in the target directory for a person to look at.
//!
//! Needs chromium (apt-get install chromium): skipped with a reason when missing, a failure
//! when FSBATTERY_REQUIRE_PRIVILEGED=1.

mod common;

use fsbattery_report::html::Html;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{chromium, CHROMIUM_FLAGS as FLAGS};

/// Probe run after the page's own script: exercises SVG and PNG export and records the
/// result in the DOM (virtual time lets the asynchronous image decode finish before the dump).
const PROBE: &str = r#"<script>
(function(){var svg=document.querySelector('svg.chart'),h=document.documentElement;
h.setAttribute('data-svg-bytes',String(window.fsbattery.svgText(svg).length));
window.fsbattery.toPng(svg,function(b){h.setAttribute('data-png-bytes',String(b?b.size:0));});})();
</script>"#;

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("browser")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run Chromium with `args` on `page`, killing it after a minute; (stdout, stderr).
fn run(browser: &Path, dir: &Path, page: &Path, args: &[&str]) -> (String, String) {
    let profile = dir.join(format!("profile-{}", args.len()));
    let mut child = Command::new(browser)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .expect("start chromium");
    common::wait_for_chromium(&mut child);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    (read("stdout"), read("stderr"))
}

/// Script errors seen by the page's trap or by Chromium's console log.
fn script_errors(dom: &str, stderr: &str) -> Vec<String> {
    let mut errors: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("Uncaught") || l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    if let Some(at) = dom.find("data-js-error=\"") {
        let rest = &dom[at + 15..];
        errors.push(format!(
            "page trap: {}",
            &rest[..rest.find('"').unwrap_or(rest.len())]
        ));
    }
    errors
}

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

fn page(dir: &Path, extra: &str) -> (PathBuf, String) {
    let rec = common::run();
    let html = Html
        .render(&Report {
            record: &rec,
            aggregate: Aggregate::Mean,
            rank_reference: false,
        })
        .unwrap();
    let html = String::from_utf8(html)
        .unwrap()
        .replace("</body>", &format!("{extra}</body>"));
    let path = dir.join("report.html");
    std::fs::write(&path, &html).unwrap();
    (path, html)
}

#[test]
fn page_runs_cleanly_in_chromium_with_every_chart() {
    let Some(browser) = chromium() else {
        common::gate(false, "chromium (apt-get install chromium)");
        return;
    };
    let dir = workdir("clean");
    let (path, source) = page(&dir, PROBE);
    let (dom, stderr) = run(
        &browser,
        &dir,
        &path,
        &["--virtual-time-budget=5000", "--dump-dom"],
    );
    assert!(
        dom.contains("data-js-ready=\"1\""),
        "the page script did not run; stderr:\n{stderr}"
    );
    let errors = script_errors(&dom, &stderr);
    assert!(errors.is_empty(), "script errors: {errors:#?}");
    for kind in ["bar", "cpu", "total", "score", "recsize"] {
        let needle = format!("class=\"chart {kind}\"");
        assert!(count(&dom, &needle) > 0, "no svg.chart.{kind} in the DOM");
        assert_eq!(
            count(&dom, &needle),
            count(&source, &needle),
            "svg.chart.{kind}"
        );
    }
    assert_eq!(count(&dom, "id=\"heatmap\""), 1);
    assert_eq!(count(&dom, "class=\"winner-map\""), 1);
    let png = dom
        .split("data-png-bytes=\"")
        .nth(1)
        .and_then(|s| s.split('"').next());
    let png: usize = png
        .and_then(|s| s.parse().ok())
        .expect("PNG export reported");
    assert!(png > 1000, "PNG export produced {png} bytes");
}

#[test]
fn a_planted_script_error_is_caught() {
    let Some(browser) = chromium() else {
        common::gate(false, "chromium (apt-get install chromium)");
        return;
    };
    let dir = workdir("planted");
    let (path, _) = page(&dir, "<script>window.noSuchFunction();</script>");
    let (dom, stderr) = run(&browser, &dir, &path, &["--dump-dom"]);
    let errors = script_errors(&dom, &stderr);
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("page trap:") && e.contains("noSuchFunction")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("Uncaught")),
        "chromium's log: {errors:#?}"
    );
}

#[test]
fn screenshot_for_a_person_to_look_at() {
    let Some(browser) = chromium() else {
        common::gate(false, "chromium (apt-get install chromium)");
        return;
    };
    let dir = workdir("screenshot");
    let (path, _) = page(&dir, "");
    let shot = dir.join("report.png");
    let arg = format!("--screenshot={}", shot.display());
    run(&browser, &dir, &path, &[&arg, "--window-size=1280,4000"]);
    let png = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(&png[1..4], b"PNG");
    assert!(
        png.len() > 50_000,
        "a 1280×4000 page of charts is not blank"
    );
    eprintln!("screenshot: {}", shot.display());
}

/// Measures, after layout, whether the summary or the heat-map scrolls sideways, and whether
/// clicking a heat-map heading sorts the rows by that column's ratio (empty cells last).
const LAYOUT_PROBE: &str = r#"<script>
(function(){var h=document.documentElement,over=[];
document.querySelectorAll('#summary .table-wrap, #all-tests .table-wrap').forEach(function(w){
if(w.scrollWidth>w.clientWidth+1){over.push(w.closest('section').id);}});
h.setAttribute('data-overflow',over.join(',')||'none');
document.querySelector('table.heatmap th[data-sort="2"] button').click();
var r=Array.prototype.map.call(document.querySelectorAll('table.heatmap tbody tr'),function(tr){
var v=tr.cells[3].getAttribute('data-ratio');return v?+v:Infinity;}),ok=true;
for(var i=1;i<r.length;i++){if(r[i]<r[i-1]){ok=false;}}
h.setAttribute('data-sorted',ok&&r[0]===1?'1':'0:'+r.join(' '));})();
</script>"#;

fn attr<'a>(dom: &'a str, name: &str) -> &'a str {
    let at = dom
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} in the DOM"));
    let rest = &dom[at + name.len() + 2..];
    &rest[..rest.find('"').unwrap()]
}

#[test]
fn summary_fits_a_laptop_window_and_the_heat_map_sorts() {
    let Some(browser) = chromium() else {
        common::gate(false, "chromium (apt-get install chromium)");
        return;
    };
    for width in [800, 1400] {
        let dir = workdir(&format!("layout-{width}"));
        let (path, _) = page(&dir, LAYOUT_PROBE);
        let size = format!("--window-size={width},1000");
        let (dom, stderr) = run(&browser, &dir, &path, &[&size, "--dump-dom"]);
        let errors = script_errors(&dom, &stderr);
        assert!(errors.is_empty(), "script errors: {errors:#?}");
        assert_eq!(
            attr(&dom, "data-overflow"),
            "none",
            "at {width} px these sections scroll sideways"
        );
        assert_eq!(
            attr(&dom, "data-sorted"),
            "1",
            "heat-map sort at {width} px"
        );
    }
}

/// Measures, after layout, how wide the document is (wider than its window means the page
/// scrolls sideways) and which elements stick out past the window; says so to the framing
/// page (below), whose attributes the DOM dump shows.
const WIDTH_PROBE: &str = r#"<script>
(function(){var h=document.documentElement,w=window.innerWidth,out=[];
document.querySelectorAll('body *').forEach(function(e){var r=e.getBoundingClientRect();
if(r.right>w+1&&out.length<8&&!e.closest('.table-wrap,.chart-body')){out.push(e.tagName+'.'+e.className+'#'+e.id+':'+Math.round(r.right));}});
if(parent!==window){parent.postMessage([h.scrollWidth,w,out.join(' ')||'none'].join('|'),'*');}})();
</script>"#;

/// A page that frames the report 390 px wide: headless Chromium's window is at least 500 px,
/// and a frame is a viewport of its own (media queries, `innerWidth`), so the report inside
/// lays out as on a phone. The probe's message lands in `data-phone`.
const PHONE_FRAME: &str = r#"<!DOCTYPE html><html><body style="margin:0">
<iframe src="report.html" style="width:390px;height:1900px;border:0;display:block"></iframe>
<script>addEventListener('message',function(e){document.documentElement.setAttribute('data-phone',String(e.data));});</script>
</body></html>"#;

/// On a phone (390 px) the page does not scroll sideways: wide tables and charts scroll inside
/// their own box; and the page photographed at 1280 and at 390 px is not blank. The sections
/// are collapsible (`<details open>`) under a table of contents.
#[test]
fn the_page_fits_a_phone_and_is_not_blank_at_1280_and_390_px() {
    let Some(browser) = chromium() else {
        common::gate(false, "chromium (apt-get install chromium)");
        return;
    };
    let dir = workdir("phone");
    let (path, html) = page(&dir, WIDTH_PROBE);
    assert!(
        html.contains("<nav aria-label=\"Contents\">"),
        "no table of contents"
    );
    assert_eq!(
        count(&html, "<details open>"),
        count(&html, "<section id="),
        "every section collapsible"
    );
    let frame = dir.join("phone.html");
    std::fs::write(&frame, PHONE_FRAME).unwrap();
    let (dom, stderr) = run(
        &browser,
        &dir,
        &frame,
        &[
            "--window-size=500,2000",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ],
    );
    let errors = script_errors(&dom, &stderr);
    assert!(errors.is_empty(), "script errors: {errors:#?}");
    let phone = attr(&dom, "data-phone");
    let parts: Vec<&str> = phone.split('|').collect();
    assert_eq!(parts[1], "390", "the frame is 390 px wide: {phone}");
    let width: u32 = parts[0].parse().unwrap();
    assert!(
        width <= 390,
        "at 390 px the page is {width} px wide; sticking out: {}",
        parts[2]
    );
    for (w, target, least) in [(1280, &path, 50_000), (500, &frame, 20_000)] {
        let shots = dir.join(format!("shot-{w}"));
        std::fs::create_dir_all(&shots).unwrap();
        let shot = shots.join("report.png");
        let arg = format!("--screenshot={}", shot.display());
        let size = format!("--window-size={w},2000");
        run(&browser, &shots, target, &[&arg, &size]);
        let png = std::fs::read(&shot).expect("screenshot written");
        assert_eq!(&png[1..4], b"PNG");
        // A blank page compresses to a few kilobytes; text and charts do not.
        assert!(png.len() > least, "{w} px: {} bytes, blank?", png.len());
        eprintln!("screenshot: {}", shot.display());
    }
}
