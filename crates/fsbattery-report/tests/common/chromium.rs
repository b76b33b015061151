//! Headless Chromium for the tests that load a page in a browser: finding the binary and
//! waiting for it with a deadline. Used by the report crate's tests and, through `#[path]`,
//! by the binary's site test, so both find and stop the browser the same way.

use std::path::PathBuf;

/// The Chromium binary on PATH, if any.
pub fn chromium() -> Option<PathBuf> {
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Wait for a headless chromium to exit, killing it after 60 s so a hung browser fails the
/// test instead of hanging CI.
pub fn wait_for_chromium(child: &mut std::process::Child) {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium did not finish within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
