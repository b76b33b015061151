//! Screenshot comparison of the HTML report, so a layout regression fails CI: the fixture run
//! is rendered, headless Chromium photographs it at 1400 and 800 px wide, and each picture is
//! compared with a reference PNG in tests/fixtures/screenshots/.
//!
//! Tolerance: a pixel differs when any channel differs by more than [`CHANNEL`]; the test fails
//! when more than [`MAX_DIFFERING`] of the pixels differ, or the sizes differ. On failure the
//! actual picture and a diff (differing pixels red on a faded copy) are written under the
//! target directory and their paths printed.
//!
//! Regenerate the references deliberately, after looking at the pictures, with
//! `FSBATTERY_UPDATE_SCREENSHOTS=1 cargo test -p fsbattery-report --test screenshot`.
//!
//! Determinism: a fixed window, device scale factor 1, no scrollbars, no animation or
//! transition or caret, and the page's fonts pinned to DejaVu Sans (fonts-dejavu-core) by a
//! test-only style sheet, because `system-ui` resolves differently on each machine. The
//! picture shows the header, the summary (with its composite charts) and the all-tests
//! heat-map; the other sections are hidden by the same style sheet, since their markup is
//! byte-checked by the golden tests and would only make the references large.
//!
//! Needs chromium (apt-get install chromium fonts-dejavu-core): skipped with a reason when
//! missing, a failure when FSBATTERY_REQUIRE_PRIVILEGED=1.

mod common;

use common::{chromium, CHROMIUM_FLAGS};
use fsbattery_report::html::Html;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Per-channel difference (0–255) below which two pixels count as equal (anti-aliasing).
const CHANNEL: u8 = 24;
/// Fraction of pixels allowed to differ.
const MAX_DIFFERING: f64 = 0.005;
/// (width, height) of each picture: the height holds the summary and the heat-map.
const SIZES: [(u32, u32); 2] = [(1400, 2900), (800, 4800)];

/// Pins what varies between machines and runs, and hides the chart sections.
const TEST_STYLE: &str = "<style>\
*,*::before,*::after{animation:none!important;transition:none!important;caret-color:transparent!important}\
body,button,svg,svg text{font-family:'DejaVu Sans',sans-serif!important}\
#tests,#cpu,#matrices,#iozone,#latency,#environment{display:none!important}\
</style>";

fn references() -> PathBuf {
    common::fixtures().join("screenshots")
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshot");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn page(dir: &Path) -> PathBuf {
    let rec = common::run();
    let html = Html
        .render(&Report {
            record: &rec,
            aggregate: Aggregate::Mean,
            rank_reference: false,
        })
        .unwrap();
    let html =
        String::from_utf8(html)
            .unwrap()
            .replacen("</head>", &format!("{TEST_STYLE}</head>"), 1);
    let path = dir.join("report.html");
    std::fs::write(&path, html).unwrap();
    path
}

/// Photograph `page` in a `width` × `height` window into `shot`.
fn shoot(browser: &Path, page: &Path, (width, height): (u32, u32), shot: &Path) {
    let dir = shot.parent().unwrap();
    let profile = dir.join(format!("profile-{width}"));
    let _ = std::fs::remove_dir_all(&profile);
    let _ = std::fs::remove_file(shot);
    let mut child = Command::new(browser)
        .args(CHROMIUM_FLAGS)
        .args([
            "--force-device-scale-factor=1",
            "--font-render-hinting=none",
            "--disable-lcd-text",
            "--run-all-compositor-stages-before-draw",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    common::wait_for_chromium(&mut child);
    assert!(shot.is_file(), "chromium wrote no screenshot");
}

/// An RGBA8 picture.
struct Picture {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

fn decode(path: &Path) -> Picture {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("{}: unexpected colour type {other:?}", path.display()),
    };
    Picture {
        width: info.width,
        height: info.height,
        rgba,
    }
}

fn encode(path: &Path, p: &Picture) {
    let file = std::fs::File::create(path).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), p.width, p.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .unwrap()
        .write_image_data(&p.rgba)
        .unwrap();
}

/// Number of differing pixels and a picture of where they are.
fn diff(a: &Picture, b: &Picture) -> (usize, Picture) {
    let mut n = 0;
    let mut rgba = Vec::with_capacity(a.rgba.len());
    for (pa, pb) in a.rgba.chunks(4).zip(b.rgba.chunks(4)) {
        let differs = pa.iter().zip(pb).any(|(x, y)| x.abs_diff(*y) > CHANNEL);
        if differs {
            n += 1;
            rgba.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            rgba.extend(pa[..3].iter().map(|c| 255 - (255 - c) / 4));
            rgba.push(255);
        }
    }
    let picture = Picture {
        width: a.width,
        height: a.height,
        rgba,
    };
    (n, picture)
}

fn compare_at(width: u32) {
    let size = SIZES.iter().copied().find(|s| s.0 == width).unwrap();
    let Some(browser) = chromium() else {
        common::gate(false, "chromium (apt-get install chromium)");
        return;
    };
    let dir = out_dir().join(width.to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let page = page(&dir);
    let shot = dir.join(format!("report-{width}.png"));
    shoot(&browser, &page, size, &shot);
    let reference = references().join(format!("report-{width}.png"));
    if std::env::var("FSBATTERY_UPDATE_SCREENSHOTS").as_deref() == Ok("1") {
        std::fs::create_dir_all(references()).unwrap();
        std::fs::copy(&shot, &reference).unwrap();
        eprintln!("updated {}", reference.display());
        return;
    }
    assert!(
        reference.is_file(),
        "{} is missing: look at {} and rerun with FSBATTERY_UPDATE_SCREENSHOTS=1",
        reference.display(),
        shot.display()
    );
    let (actual, expected) = (decode(&shot), decode(&reference));
    assert_eq!(
        (actual.width, actual.height),
        (expected.width, expected.height),
        "screenshot size differs from {}; actual: {}",
        reference.display(),
        shot.display()
    );
    let (n, picture) = diff(&actual, &expected);
    let total = (actual.width * actual.height) as f64;
    let fraction = n as f64 / total;
    eprintln!("at {width} px {n} of {total} pixels differ from the reference");
    if fraction > MAX_DIFFERING {
        let diff_path = dir.join(format!("diff-{width}.png"));
        encode(&diff_path, &picture);
        panic!(
            "at {width} px {n} pixels ({:.2}%) differ from {} (tolerance {:.2}%): actual {}, diff {}; \
             if the change is intended, rerun with FSBATTERY_UPDATE_SCREENSHOTS=1",
            fraction * 100.0,
            reference.display(),
            MAX_DIFFERING * 100.0,
            shot.display(),
            diff_path.display()
        );
    }
}

#[test]
fn report_matches_its_reference_at_1400_px() {
    compare_at(1400);
}

#[test]
fn report_matches_its_reference_at_800_px() {
    compare_at(800);
}

#[test]
fn the_comparison_sees_a_changed_pixel_block_and_ignores_anti_aliasing() {
    let blank = |w, h| Picture {
        width: w,
        height: h,
        rgba: vec![255; (w * h * 4) as usize],
    };
    let a = blank(10, 10);
    let mut b = blank(10, 10);
    b.rgba[0] = 255 - CHANNEL; // within the per-channel threshold
    assert_eq!(diff(&a, &b).0, 0);
    for px in 0..5 {
        b.rgba[px * 4 + 1] = 0;
    }
    assert_eq!(diff(&a, &b).0, 5);
}
