//! `fsbattery site OUT/`: the results site over the store. The pages are rendered by
//! `fsbattery_report::site`; here the store is read (one snapshot) and the pages written.

use crate::cli::SiteArgs;
use fsbattery_report::site::{self, SiteData};
use fsbattery_store::{By, Filter, Store, StoreError};
use std::path::Path;
use std::process::ExitCode;

/// The change points on the site are found at this level, `history`'s default.
const SITE_P: f64 = 0.01;

/// Write the site and say where it is.
pub fn site(args: SiteArgs) -> anyhow::Result<ExitCode> {
    let store = super::store::existing(args.store.as_deref())?;
    let data = read(&store, SITE_P, args.include_partial)?;
    let out = &args.out;
    std::fs::create_dir_all(out)?;
    let record = |dir: &str| {
        fsbattery_record::load(Path::new(dir))
            .map(|l| l.record)
            .map_err(|e| e.to_string())
    };
    let pages = site::pages(&data, &record, |name, html| {
        std::fs::write(out.join(&name), html)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", out.join(&name).display()))
    })?;
    crate::stdout::write_unless_closed(format!(
        "{pages} pages written: {}\n",
        out.join("index.html").display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Everything the site shows, read as one snapshot of the store: a run stored meanwhile is
/// on every page or on none.
fn read(store: &Store, p: f64, include_partial: bool) -> Result<SiteData, StoreError> {
    store.snapshot(|store| {
        let filter = Filter {
            include_partial,
            ..Filter::default()
        };
        let mut series = Vec::new();
        for by in [By::Time, By::Kernel, By::FsVersion, By::Options] {
            series.extend(fsbattery_store::series(store, &filter, by, p)?);
        }
        Ok(SiteData {
            runs: store.runs_where(include_partial)?,
            points: store.points(&filter)?,
            series,
        })
    })
}
