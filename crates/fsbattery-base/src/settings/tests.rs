//! The declaration writes specs in field order, decodes typed values, and refuses a raw value
//! that stands for no variant with the parameter's name.

use super::*;
use crate::params::{ParamKind, ParamSpec, Scale};
use std::collections::BTreeMap;

crate::choice! {
    /// A test choice.
    pub enum Shade { Light = "light", Dark = "dark" }
}

crate::settings! {
    /// Test settings.
    pub struct Demo {
        /// A size.
        pub size: Bytes = ParamSpec {
            name: "size", help: "", kind: ParamKind::Bytes, quick: 4096, standard: 8192,
            full_twice_ram: false, min: 1, max: 1 << 40,
        },
        /// A choice.
        pub shade: Shade = ParamSpec {
            name: "shade", help: "", kind: ParamKind::Choice(<Shade as Choice>::NAMES),
            quick: 1, standard: 1, full_twice_ram: false, min: 0, max: 1,
        },
        /// A switch.
        pub on: bool = ParamSpec {
            name: "on", help: "", kind: ParamKind::Bool, quick: 0, standard: 0,
            full_twice_ram: false, min: 0, max: 1,
        },
    }
}

#[test]
fn specs_follow_the_fields_and_values_decode_typed() {
    let names: Vec<_> = Demo::specs().iter().map(|s| s.name).collect();
    assert_eq!(names, ["size", "shade", "on"]);
    let o = BTreeMap::from([("shade".to_string(), "light".to_string())]);
    let p = Params::resolve("demo", Demo::specs(), Scale::Standard, 0, &o).unwrap();
    let d = Demo::decode(&Raw(&p)).unwrap();
    assert_eq!(
        d,
        Demo {
            size: Bytes(8192),
            shade: Shade::Light,
            on: false
        }
    );
    // Records spell the name, never the position.
    assert_eq!(p.to_text(Demo::specs())["shade"], "light");
}

#[test]
fn a_value_standing_for_no_variant_is_refused_by_name() {
    let p = Params::from_pairs(&[("size", 1), ("shade", 7), ("on", 0)]);
    let e = decode::<Demo>("demo", &p).unwrap_err().to_string();
    assert!(
        e.contains("demo.shade=7") && e.contains("light, dark"),
        "{e}"
    );
    let p = Params::from_pairs(&[("size", 1), ("shade", 0), ("on", 2)]);
    assert!(decode::<Demo>("demo", &p).is_err());
}
