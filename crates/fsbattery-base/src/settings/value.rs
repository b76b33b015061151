//! The types a setting's field may have, and how each is read from its resolved value: counts
//! (`u64`, `u32`), switches (`bool`), sizes ([`Bytes`]), durations in whole seconds
//! ([`std::time::Duration`]) and choices (enums declared with [`choice!`](crate::choice)).

use std::time::Duration;

/// A field type of a settings struct.
pub trait Setting: Sized {
    /// The typed value of a resolved raw value; `None` when it cannot stand for one.
    fn from_raw(raw: u64) -> Option<Self>;
    /// The resolved raw value standing for it (the inverse of [`Self::from_raw`]).
    fn to_raw(&self) -> u64;
    /// What a value must be, for the error when [`Self::from_raw`] refuses one.
    fn expected() -> String {
        "out of range".into()
    }
}

impl Setting for u64 {
    fn from_raw(raw: u64) -> Option<Self> {
        Some(raw)
    }
    fn to_raw(&self) -> u64 {
        *self
    }
}

impl Setting for u32 {
    fn from_raw(raw: u64) -> Option<Self> {
        u32::try_from(raw).ok()
    }
    fn to_raw(&self) -> u64 {
        u64::from(*self)
    }
}

impl Setting for bool {
    fn from_raw(raw: u64) -> Option<Self> {
        match raw {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn to_raw(&self) -> u64 {
        u64::from(*self)
    }
    fn expected() -> String {
        "write true or false".into()
    }
}

/// Whole seconds.
impl Setting for Duration {
    fn from_raw(raw: u64) -> Option<Self> {
        Some(Duration::from_secs(raw))
    }
    fn to_raw(&self) -> u64 {
        self.as_secs()
    }
}

/// A size in bytes (parsed and shown with binary suffixes: `64MiB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    /// The number of bytes.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::units::format_bytes(self.0))
    }
}

impl Setting for Bytes {
    fn from_raw(raw: u64) -> Option<Self> {
        Some(Bytes(raw))
    }
    fn to_raw(&self) -> u64 {
        self.0
    }
}

/// A choice: an enum whose variants have names ([`choice!`](crate::choice) writes the impl).
pub trait Choice: Sized + Copy + 'static {
    /// Every name, in listing order.
    const NAMES: &'static [&'static str];
    /// The variant called `name`.
    fn from_name(name: &str) -> Option<Self>;
    /// Its name: what `--set`, suite files and records spell.
    fn name(self) -> &'static str;
}

/// Declare a choice: an enum with one name per variant, in listing order.
///
/// ```ignore
/// choice! {
///     /// Content of written blocks.
///     pub enum Fill { Zeros = "zeros", Random = "random" }
/// }
/// ```
#[macro_export]
macro_rules! choice {
    ($(#[$m:meta])* $vis:vis enum $E:ident {
        $( $(#[$vm:meta])* $V:ident = $name:literal ),+ $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $E { $( $(#[$vm])* $V, )+ }

        impl $crate::settings::Choice for $E {
            const NAMES: &'static [&'static str] = &[$($name),+];
            fn from_name(name: &str) -> Option<Self> {
                match name {
                    $( $name => Some($E::$V), )+
                    _ => None,
                }
            }
            fn name(self) -> &'static str {
                match self { $( $E::$V => $name, )+ }
            }
        }

        impl $crate::settings::Setting for $E {
            fn from_raw(raw: u64) -> Option<Self> {
                let names = <$E as $crate::settings::Choice>::NAMES;
                usize::try_from(raw)
                    .ok()
                    .and_then(|i| names.get(i))
                    .and_then(|n| <$E as $crate::settings::Choice>::from_name(n))
            }
            fn to_raw(&self) -> u64 {
                let name = $crate::settings::Choice::name(*self);
                let names = <$E as $crate::settings::Choice>::NAMES;
                names.iter().position(|n| *n == name).unwrap_or(0) as u64
            }
            fn expected() -> String {
                format!(
                    "use one of {}",
                    <$E as $crate::settings::Choice>::NAMES.join(", ")
                )
            }
        }

        impl std::fmt::Display for $E {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::settings::Choice::name(*self))
            }
        }
    };
}
