//! The `workloads!` registry: one line per workload, in listing order, that names the
//! workload's value and, the first time a module appears, declares that module too
//! (`mod split::Split,`; `pub mod` where other crates reach into it). Adding a workload is
//! then one new file and one line in `lib.rs`: Rust needs a `mod` declaration for every file,
//! and folding it into the registry line keeps the two from drifting apart.
//!
//! Expands to the module declarations and `pub fn registry()`, the workloads in the order
//! written (`fsbattery list workloads` shows them in that order).

/// See the module header. A token muncher: each entry adds its `mod` declaration (if any)
/// to the first list and its `&module::Value` to the second; the last rule writes both out.
macro_rules! workloads {
    (@go [$($mods:tt)*] [$($entries:tt)*]) => {
        $($mods)*
        /// Every workload fsbattery knows, in listing order (see `register.rs`).
        pub fn registry() -> &'static [&'static dyn Workload] {
            &[$($entries)*]
        }
    };
    (@go [$($mods:tt)*] [$($entries:tt)*] pub mod $m:ident :: $w:ident, $($rest:tt)*) => {
        workloads!(@go [$($mods)* pub mod $m;] [$($entries)* &$m::$w,] $($rest)*);
    };
    (@go [$($mods:tt)*] [$($entries:tt)*] mod $m:ident :: $w:ident, $($rest:tt)*) => {
        workloads!(@go [$($mods)* mod $m;] [$($entries)* &$m::$w,] $($rest)*);
    };
    (@go [$($mods:tt)*] [$($entries:tt)*] $m:ident :: $w:ident, $($rest:tt)*) => {
        workloads!(@go [$($mods)*] [$($entries)* &$m::$w,] $($rest)*);
    };
    ($($t:tt)*) => {
        workloads!(@go [] [] $($t)*);
    };
}
