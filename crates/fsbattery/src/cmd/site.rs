//! `fsbattery site OUT/`: the results site over the store (see `crate::site`).

use crate::cli::SiteArgs;
use std::process::ExitCode;

/// The change points on the site are found at this level, `history`'s default.
const SITE_P: f64 = 0.01;

/// Write the site and say where it is.
pub fn site(args: SiteArgs) -> anyhow::Result<ExitCode> {
    let store = super::store::existing(args.store.as_deref())?;
    let pages = crate::site::write_site(&store, &args.out, SITE_P, args.include_partial)?;
    crate::stdout::write_unless_closed(format!(
        "{pages} pages written: {}\n",
        args.out.join("index.html").display()
    ))?;
    Ok(ExitCode::SUCCESS)
}
