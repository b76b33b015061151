//! The values shell completion offers, from the registries themselves: workload names (`run`,
//! `tune`, `setup`, `list workloads`, `history`), suite presets and their aliases, target specs
//! (`loop:FS` for every filesystem fsbattery can make, `tmpfs`, and the `dir:`/`dev:`
//! prefixes), metric names (`history --metric`) and the suites with published numbers
//! (`report --then`); formats are value enums, offered by clap itself. Set on the clap command used only to write
//! the completion script, so parsing keeps its own checks and messages ("did you mean").

use clap::builder::PossibleValuesParser;
use clap::Command;
use fsbattery_core::{suite, targets, workload};

/// `cmd` with completion candidates on every argument that names a workload, suite or target.
pub fn with_candidates(cmd: Command) -> Command {
    let workloads: Vec<String> = workload::registry()
        .iter()
        .map(|w| w.name().to_string())
        .collect();
    let suites: Vec<String> = suite::presets()
        .iter()
        .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().copied()))
        .map(String::from)
        .collect();
    let targets: Vec<String> = targets::known_filesystems()
        .iter()
        .map(|fs| match targets::made_on_images(fs) {
            true => format!("loop:{fs}"),
            false => fs.to_string(),
        })
        .chain(["dir:", "dev:/dev/"].map(String::from))
        .collect();
    let named = |cmd: Command| {
        cmd.mut_arg("workloads", |a| {
            a.value_parser(PossibleValuesParser::new(workloads.clone()))
        })
        .mut_arg("suite", |a| {
            a.value_parser(PossibleValuesParser::new(suites.clone()))
        })
        .mut_arg("targets", |a| {
            a.value_parser(PossibleValuesParser::new(targets.clone()))
        })
    };
    let metrics = metric_names();
    let published = fsbattery_core::published::names();
    cmd.mut_subcommand("run", named)
        .mut_subcommand("tune", named)
        .mut_subcommand("setup", named)
        .mut_subcommand("list", |c| {
            c.mut_arg("name", |a| {
                a.value_parser(PossibleValuesParser::new(workloads.clone()))
            })
        })
        .mut_subcommand("history", |c| {
            c.mut_arg("workload", |a| {
                a.value_parser(PossibleValuesParser::new(workloads.clone()))
            })
            .mut_arg("suite", |a| {
                a.value_parser(PossibleValuesParser::new(suites.clone()))
            })
            .mut_arg("metric", |a| {
                a.value_parser(PossibleValuesParser::new(metrics.clone()))
            })
            .mut_arg("target", |a| {
                a.value_parser(PossibleValuesParser::new(targets.clone()))
            })
        })
        .mut_subcommand("report", |c| {
            c.mut_arg("then", |a| {
                a.value_parser(PossibleValuesParser::new(published.clone()))
            })
        })
}

/// Every metric name of every workload at its default parameters, sorted and once each
/// (`history --metric`).
fn metric_names() -> Vec<String> {
    let mut names: Vec<String> = workload::registry()
        .iter()
        .flat_map(|w| {
            let params = fsbattery_core::params::Params::default_for(w.params());
            w.metrics(&params).into_iter().map(|m| m.name)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn run_offers_workloads_suites_and_targets() {
        let mut cmd = with_candidates(crate::cli::Cli::command());
        cmd.build();
        let run = cmd.find_subcommand("run").unwrap();
        let values = |id: &str| -> Vec<String> {
            let arg = run.get_arguments().find(|a| a.get_id() == id).unwrap();
            let pv = arg.get_possible_values();
            pv.iter().map(|v| v.get_name().to_string()).collect()
        };
        assert!(values("workloads").contains(&"metadata".to_string()));
        assert!(values("suite").contains(&"piszcz2006".to_string()));
        assert!(values("suite").contains(&"classic".to_string()));
        let t = values("targets");
        assert!(t.contains(&"loop:ext4".to_string()) && t.contains(&"tmpfs".to_string()));
    }
}
