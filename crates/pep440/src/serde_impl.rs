//! Serde support (the `serde` feature): every type is a string, its `Display` text.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::{Version, VersionSpecifier, VersionSpecifiers};

struct FromStrVisitor<T>(PhantomData<T>, &'static str);

impl<T> Visitor<'_> for FromStrVisitor<T>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        s.parse().map_err(E::custom)
    }
}

macro_rules! string_serde {
    ($ty:ty, $expecting:literal) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str(FromStrVisitor(PhantomData, $expecting))
            }
        }
    };
}

string_serde!(Version, "a PEP 440 version string");
string_serde!(VersionSpecifier, "a PEP 440 version specifier string");
string_serde!(
    VersionSpecifiers,
    "a comma-separated list of PEP 440 version specifiers"
);
