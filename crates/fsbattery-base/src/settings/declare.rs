//! [`settings!`](crate::settings): one declaration per workload from which its struct, its
//! specs and its decoding are written.
//!
//! A workload registered several times with different defaults (postmark's presets, the
//! filebench personalities) declares `struct Name(d: Defaults = DEFAULT) { ... }`: the spec
//! expressions read `d`, the struct is a [`Group`](crate::settings::Group) over `Defaults`,
//! each registry entry lists the specs of its own defaults
//! (`TypedWorkload::params`, in the workloads), and `DEFAULT` gives
//! the plain [`Settings`](crate::settings::Settings) view (tests, decoding).
//!
//! Each field is either a parameter, `name: Type = spec`, where `spec` is the [`ParamSpec`]
//! expression (built with `workload::shared::specs`: name, help, defaults per scale, range),
//! or a flattened group, `name: Group => defaults`. Specs list in field order, a group's
//! members at its place.
//!
//! [`ParamSpec`]: crate::params::ParamSpec

/// Declare a workload's settings struct (see the module docs of `settings::declare`).
///
/// ```ignore
/// settings! {
///     /// dd's settings.
///     pub struct DdSettings {
///         /// Bytes written.
///         pub size: Bytes = file_size("size", "bytes written", 64 << 20, 4 << 30, true),
///         /// The IO group.
///         pub io: IoGroup => IoDefaults::BLOCK,
///     }
/// }
/// ```
#[macro_export]
macro_rules! settings {
    ($(#[$m:meta])* $vis:vis struct $S:ident ($d:ident : $D:ty = $default:expr) {
        $( $(#[$fm:meta])* $fvis:vis $f:ident : $T:ty $(= $spec:expr)? $(=> $group:expr)? ),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $S { $( $(#[$fm])* $fvis $f: $T, )* }

        #[allow(clippy::vec_init_then_push)]
        impl $crate::settings::Group for $S {
            type Defaults = $D;
            fn specs($d: &$D) -> Vec<$crate::params::ParamSpec> {
                #[allow(unused_mut)]
                let mut v = Vec::new();
                $crate::__settings_specs!(v; $( $T $(= $spec)? $(=> $group)? ),*);
                v
            }
            #[allow(unused_variables)]
            fn decode($d: &$D, r: &$crate::settings::Raw<'_>) -> Result<Self, String> {
                Ok($S {
                    $( $f: {
                        $( r.field::<$T>(($spec).name)? )?
                        $( <$T as $crate::settings::Group>::decode(&$group, r)? )?
                    }, )*
                })
            }
            #[allow(unused_variables)]
            fn encode(&self, $d: &$D, out: &mut Vec<(&'static str, u64)>) {
                $(
                    $( out.push((($spec).name, $crate::settings::Setting::to_raw(&self.$f))); )?
                    $( <$T as $crate::settings::Group>::encode(&self.$f, &$group, out); )?
                )*
            }
        }

        #[allow(clippy::vec_init_then_push)]
        impl $crate::settings::Settings for $S {
            fn specs() -> &'static [$crate::params::ParamSpec] {
                static SPECS: std::sync::OnceLock<Vec<$crate::params::ParamSpec>> =
                    std::sync::OnceLock::new();
                SPECS.get_or_init(|| <$S as $crate::settings::Group>::specs(&$default))
            }
            fn decode(r: &$crate::settings::Raw<'_>) -> Result<Self, String> {
                <$S as $crate::settings::Group>::decode(&$default, r)
            }
            fn to_pairs(&self) -> Vec<(&'static str, u64)> {
                let mut out = Vec::new();
                <$S as $crate::settings::Group>::encode(self, &$default, &mut out);
                out
            }
        }
    };
    ($(#[$m:meta])* $vis:vis struct $S:ident {
        $( $(#[$fm:meta])* $fvis:vis $f:ident : $T:ty $(= $spec:expr)? $(=> $group:expr)? ),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $S { $( $(#[$fm])* $fvis $f: $T, )* }

        // A field is either pushed or a group extended, so the Vec is built step by step.
        #[allow(clippy::vec_init_then_push)]
        impl $crate::settings::Settings for $S {
            fn specs() -> &'static [$crate::params::ParamSpec] {
                static SPECS: std::sync::OnceLock<Vec<$crate::params::ParamSpec>> =
                    std::sync::OnceLock::new();
                SPECS.get_or_init(|| {
                    #[allow(unused_mut)]
                    let mut v = Vec::new();
                    $(
                        $( v.push($spec); )?
                        $( v.extend(<$T as $crate::settings::Group>::specs(&$group)); )?
                    )*
                    v
                })
            }
            #[allow(unused_variables)]
            fn decode(r: &$crate::settings::Raw<'_>) -> Result<Self, String> {
                Ok($S {
                    $( $f: {
                        $( r.field::<$T>(($spec).name)? )?
                        $( <$T as $crate::settings::Group>::decode(&$group, r)? )?
                    }, )*
                })
            }
            fn to_pairs(&self) -> Vec<(&'static str, u64)> {
                #[allow(unused_mut)]
                let mut out = Vec::new();
                $(
                    $( out.push((($spec).name, $crate::settings::Setting::to_raw(&self.$f))); )?
                    $( <$T as $crate::settings::Group>::encode(&self.$f, &$group, &mut out); )?
                )*
                out
            }
        }
    };
}

/// The field list of [`settings!`] as an expression list (internal).
#[doc(hidden)]
#[macro_export]
macro_rules! __settings_specs {
    ($v:ident; $( $T:ty $(= $spec:expr)? $(=> $group:expr)? ),*) => {
        $(
            $( $v.push($spec); )?
            $( $v.extend(<$T as $crate::settings::Group>::specs(&$group)); )?
        )*
    };
}
