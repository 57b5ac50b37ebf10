//! Theories: world knowledge as values. A [`Theory`] is a list of rules, each a marker that
//! holds in every real environment, with its source; operations that take a theory conjoin
//! the rules, so that equivalence, disjointness and printing take them into account.

use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};

use crate::dd::{Context, Marker};
use crate::error::{Error, ErrorKind};
use crate::translate::VarMeta;

/// One rule of a theory: a marker (extended dialect, `spec-2026` profile) that holds in every
/// environment the theory admits, and where the knowledge comes from.
///
/// ```
/// use markerspec_algebra::PLATFORM_RULES;
/// use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};
///
/// // Every rule is a marker of the extended dialect, with a source.
/// let opts = ParseOptions::default().dialect(Dialect::Extended);
/// for rule in PLATFORM_RULES {
///     assert!(MarkerTree::parse_with(rule.text, &opts, &mut Vec::new()).is_ok(), "{}", rule.id);
///     assert!(!rule.source.is_empty());
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// A short stable name.
    pub id: &'static str,
    /// The rule as a marker.
    pub text: &'static str,
    /// The source (a document, a specification section, a table in another tool).
    pub source: &'static str,
}

/// World knowledge passed to operations: [`Theory::none`] or [`Theory::platform`].
///
/// A theory has a name and a version; a rule added or changed is a new version, so a lock file
/// can record which knowledge its markers were simplified with.
///
/// ```
/// use markerspec_algebra::{Context, Theory};
/// use markerspec_pep508::MarkerTree;
///
/// let t = Theory::platform();
/// assert_eq!((t.name(), t.version()), ("platform", 1));
/// let mut ctx = Context::new();
/// let win: MarkerTree = "sys_platform == 'win32'".parse().unwrap();
/// let nt: MarkerTree = "os_name == 'nt'".parse().unwrap();
/// let (a, b) = (ctx.from_marker(&win, &t)?, ctx.from_marker(&nt, &t)?);
/// assert!(ctx.implies(a, b)?); // `sys_platform == 'win32'` ⇒ `os_name == 'nt'`
/// assert_eq!(a, b); // and conversely: one marker under this theory
/// assert_eq!(ctx.to_marker_string(a)?, r#"os_name == "nt""#); // its shortest spelling
///
/// // The theories by name, and their rules.
/// assert_eq!(Theory::by_name("none"), Some(Theory::none()));
/// assert_eq!(Theory::by_name("platform"), Some(t.clone()));
/// assert_eq!(Theory::by_name("physics"), None);
/// assert!(Theory::none().rules().is_empty());
/// assert_eq!(t.rules(), markerspec_algebra::PLATFORM_RULES);
/// assert!(t.rules().iter().any(|rule| rule.id == "win32-nt"));
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theory {
    name: &'static str,
    version: u32,
    rules: &'static [Rule],
    /// Rules instantiated on the literals a context has seen (variant prefixes, ABI tags).
    instances: bool,
}

const CPYTHON_OS: &str = "CPython docs, `os.name` and `sys.platform` (https://docs.python.org/3/library/sys.html#sys.platform)";
const CPYTHON_SYSTEM: &str = "CPython docs, `platform.system()`; uv-pep508 `marker/algebra.rs` (platform_system ↔ sys_platform table)";

/// The rules of [`Theory::platform`], version 1.
///
/// See the examples on [`Rule`] and [`Theory`].
pub const PLATFORM_RULES: &[Rule] = &[
    Rule {
        id: "win32-nt",
        text: "sys_platform == 'win32' and os_name == 'nt' or sys_platform != 'win32' and os_name != 'nt'",
        source: CPYTHON_OS,
    },
    Rule {
        id: "unix-posix",
        text: "sys_platform != 'linux' and sys_platform != 'darwin' and sys_platform != 'cygwin' and sys_platform != 'freebsd' and sys_platform != 'aix' and sys_platform != 'ios' and sys_platform != 'android' and sys_platform != 'emscripten' and sys_platform != 'wasi' or os_name == 'posix'",
        source: CPYTHON_OS,
    },
    Rule {
        id: "windows-win32",
        text: "platform_system == 'Windows' and sys_platform == 'win32' or platform_system != 'Windows' and sys_platform != 'win32'",
        source: CPYTHON_SYSTEM,
    },
    Rule {
        id: "linux-linux",
        text: "platform_system == 'Linux' and sys_platform == 'linux' or platform_system != 'Linux' and sys_platform != 'linux'",
        source: CPYTHON_SYSTEM,
    },
    Rule {
        id: "darwin-darwin",
        text: "platform_system == 'Darwin' and sys_platform == 'darwin' or platform_system != 'Darwin' and sys_platform != 'darwin'",
        source: CPYTHON_SYSTEM,
    },
    Rule {
        id: "cuda-driver",
        text: "'cuda' in gpu_backends and cuda_version != '' or 'cuda' not in gpu_backends and cuda_version == ''",
        source: "spec/SPEC.md §4.4 I1",
    },
    Rule {
        id: "one-libc",
        text: "glibc_version == '' or musl_version == ''",
        source: "spec/SPEC.md §4.4 I5",
    },
    Rule {
        id: "abi-threading",
        text: "'free-threading' not in sys_abi_features or 'gil-enabled' not in sys_abi_features",
        source: "spec/SPEC.md §4.4 I7, §8.1 (PEP 780)",
    },
    Rule {
        id: "abi-width",
        text: "'32-bit' not in sys_abi_features or '64-bit' not in sys_abi_features",
        source: "spec/SPEC.md §4.4 I7, §8.1 (PEP 780)",
    },
];

/// The instantiated rules' sources, for documentation.
///
/// ```
/// let ids: Vec<&str> = markerspec_algebra::PLATFORM_INSTANCE_SOURCES.iter().map(|(id, _)| *id).collect();
/// assert_eq!(ids, ["variant-prefix", "abi-tag-threading"]);
/// ```
pub const PLATFORM_INSTANCE_SOURCES: &[(&str, &str)] = &[
    (
        "variant-prefix",
        "for each literal `n :: f :: v`: `\"n :: f :: v\" in variant_properties` ⇒ `\"n :: f\" in variant_features` ⇒ `\"n\" in variant_namespaces` (spec/SPEC.md §4.4 I4, PEP 825)",
    ),
    (
        "abi-tag-threading",
        "for each `python_abi_tag` literal L of a CPython tag (`cpNNN…`): `python_abi_tag == L` ⇒ `\"free-threading\" in sys_abi_features` when L ends in `t`, else ⇒ `\"free-threading\" not in sys_abi_features` (PEP 703 ABI tag `t`, PEP 780)",
    ),
];

impl Theory {
    /// No world knowledge: every combination of field values is possible.
    ///
    /// See the example on [`Theory`].
    #[must_use]
    pub fn none() -> Theory {
        Theory {
            name: "none",
            version: 1,
            rules: &[],
            instances: false,
        }
    }

    /// The default platform theory, version 1: [`PLATFORM_RULES`] and the instantiated rules of
    /// [`PLATFORM_INSTANCE_SOURCES`].
    #[must_use]
    pub fn platform() -> Theory {
        Theory {
            name: "platform",
            version: 1,
            rules: PLATFORM_RULES,
            instances: true,
        }
    }

    /// A theory by name (`none`, `platform`).
    ///
    /// See the example on [`Theory`].
    #[must_use]
    pub fn by_name(name: &str) -> Option<Theory> {
        match name {
            "none" => Some(Theory::none()),
            "platform" => Some(Theory::platform()),
            _ => None,
        }
    }

    /// The theory's name.
    ///
    /// See the example on [`Theory`].
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The theory's version.
    ///
    /// See the example on [`Theory`].
    #[must_use]
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The fixed rules.
    ///
    /// See the example on [`Theory`].
    #[must_use]
    pub fn rules(&self) -> &'static [Rule] {
        self.rules
    }
}

/// The counts a theory constraint's text depends on (see [`Context::theory_constraint`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TheoryStamp {
    name: &'static str,
    version: u32,
    instances: bool,
    rules: usize,
    metas: usize,
    literals: usize,
}

impl Context {
    /// Fixes the context's theory on first use; another theory later is an error.
    pub(crate) fn use_theory(&mut self, theory: &Theory) -> Result<(), Error> {
        match &self.theory {
            None => {
                self.theory = Some(theory.clone());
                Ok(())
            }
            Some(t) if t == theory => Ok(()),
            Some(t) => Err(Error::new(ErrorKind::MixedTheories {
                first: t.name,
                second: theory.name,
            })),
        }
    }

    /// The theory the context serves (fixed by the first [`from_marker`](Self::from_marker)),
    /// [`Theory::none`] before.
    #[must_use]
    pub fn theory(&self) -> Theory {
        self.theory.clone().unwrap_or_else(Theory::none)
    }

    /// The conjunction of `theory`'s rules, instantiated on the literals the context has seen
    /// so far: a marker that holds in every environment the theory admits.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] past the limits.
    ///
    /// See the example on [`Context::translate`].
    pub fn theory_constraint(&mut self, theory: &Theory) -> Result<Marker, Error> {
        // The rules' text depends only on the theory and on the variables and string literals
        // declared so far, which only grow: while their counts are unchanged, so is the
        // constraint, and its text need not be rebuilt.
        let stamp = self.theory_stamp(theory);
        if let Some((_, m)) = self.theory_stamp_cache.iter().find(|(s, _)| *s == stamp) {
            return Ok(*m);
        }
        let m = self.theory_constraint_uncached(theory)?;
        // One entry per theory: the one before for this theory is stale.
        self.theory_stamp_cache
            .retain(|(s, _)| s.name != stamp.name);
        self.theory_stamp_cache.push((stamp, m));
        Ok(m)
    }

    /// What [`theory_constraint`](Self::theory_constraint)'s text depends on, as counts.
    fn theory_stamp(&self, theory: &Theory) -> TheoryStamp {
        if !theory.instances {
            // Fixed rules: nothing the context declares changes them.
            return TheoryStamp {
                name: theory.name,
                version: theory.version,
                instances: false,
                rules: theory.rules.len(),
                metas: 0,
                literals: 0,
            };
        }
        TheoryStamp {
            name: theory.name,
            version: theory.version,
            instances: theory.instances,
            rules: theory.rules.len(),
            metas: self.meta.iter().filter(|m| m.is_some()).count(),
            literals: self
                .literals
                .values()
                .map(std::collections::BTreeSet::len)
                .sum(),
        }
    }

    fn theory_constraint_uncached(&mut self, theory: &Theory) -> Result<Marker, Error> {
        let mut texts: Vec<String> = theory.rules.iter().map(|r| r.text.to_owned()).collect();
        if theory.instances {
            texts.extend(self.instance_rules());
        }
        let key = format!("{}\n{}", theory.name, texts.join("\n"));
        if let Some((_, m)) = self.theory_cache.iter().find(|(k, _)| *k == key) {
            return Ok(*m);
        }
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        let mut acc = Marker::TRUE;
        for t in &texts {
            let tree = MarkerTree::parse_with(t, &opts, &mut Vec::new()).map_err(|e| {
                Error::new(ErrorKind::Evaluation {
                    message: format!("theory rule `{t}`: {e}"),
                })
            })?;
            let m = self.translate(&tree)?;
            acc = self.conj(acc, m)?;
        }
        // One entry per theory (the key starts with its name).
        let prefix = format!("{}\n", theory.name);
        self.theory_cache.retain(|(k, _)| !k.starts_with(&prefix));
        self.theory_cache.push((key, acc));
        Ok(acc)
    }

    fn instance_rules(&self) -> Vec<String> {
        use markerspec_pep508::Field;
        let mut out = Vec::new();
        let q = |s: &str| format!("{s:?}");
        for meta in self.meta.iter().flatten() {
            if let VarMeta::Member { field, literal } = meta {
                let parts: Vec<&str> = literal.split(" :: ").collect();
                match (field, parts.as_slice()) {
                    (Field::VariantProperties, [n, f, _]) => {
                        out.push(format!(
                            "{} not in variant_properties or {} in variant_features",
                            q(literal),
                            q(&format!("{n} :: {f}"))
                        ));
                        out.push(format!(
                            "{} not in variant_features or {} in variant_namespaces",
                            q(&format!("{n} :: {f}")),
                            q(n)
                        ));
                    }
                    (Field::VariantFeatures, [n, _]) => out.push(format!(
                        "{} not in variant_features or {} in variant_namespaces",
                        q(literal),
                        q(n)
                    )),
                    _ => {}
                }
            }
        }
        for (var, lits) in &self.literals {
            if !matches!(
                self.meta(*var),
                Some(VarMeta::Str {
                    field: Field::PythonAbiTag
                })
            ) {
                continue;
            }
            for l in lits {
                let Some(free_threaded) = cpython_abi_tag(l) else {
                    continue;
                };
                let feature = if free_threaded { "in" } else { "not in" };
                out.push(format!(
                    "python_abi_tag != {} or 'free-threading' {feature} sys_abi_features",
                    q(l)
                ));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// For a CPython ABI tag, whether it is a free-threaded build's; `None` for any other text.
/// A CPython tag (SPEC §8.2) is `cp`, the version's digits (two or more: `cp27`, `cp313`),
/// then its ABI flags in this order, each at most once: `t` (free-threaded, PEP 703), `d`
/// (debug), `m` (pymalloc, before 3.8), `u` (wide Unicode, 2.7): `cp313t`, `cp313td`,
/// `cp37m`, `cp37dm`, `cp27mu`. The `abi-tag-threading` rule ties such a tag to
/// `"free-threading" in sys_abi_features`: in exactly when the `t` is there.
pub(crate) fn cpython_abi_tag(tag: &str) -> Option<bool> {
    let rest = tag.strip_prefix("cp")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let flags = rest.get(digits..)?;
    if digits < 2 {
        return None;
    }
    // Each flag found further along the order than the one before it.
    let mut order = "tdmu".chars();
    for flag in flags.chars() {
        order.find(|&o| o == flag)?;
    }
    Some(flags.starts_with('t'))
}

#[cfg(test)]
mod tests {
    use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};

    use super::Theory;
    use crate::Context;

    fn parse(text: &str) -> Result<MarkerTree, Box<dyn std::error::Error>> {
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        MarkerTree::parse_with(text, &opts, &mut Vec::new())
            .map_err(|e| format!("{text}: {e}").into())
    }

    /// A marker read before the context meets a literal that instantiates a rule relates to
    /// the others as the same text read now does: `relation`, `cells` and `relate` do not
    /// depend on what the context read in between.
    #[test]
    fn relations_do_not_depend_on_the_literals_met_in_between()
    -> Result<(), Box<dyn std::error::Error>> {
        use crate::RelationKind;
        let platform = Theory::platform();
        let opts = markerspec_pep508::ParseOptions::default().dialect(Dialect::Extended);
        let mut ctx = Context::new();
        let read = |ctx: &mut Context, text: &str| {
            ctx.parse_marker(text, &opts, &mut Vec::new(), &platform)
        };
        let cuda_then = read(&mut ctx, "'cuda' in gpu_backends")?;
        // A variant feature: a rule tying it to its namespace joins the constraint.
        read(&mut ctx, "'nvidia :: cuda' not in variant_features")?;
        let always = read(&mut ctx, "os_name == 'nt' or os_name != 'nt'")?;
        let cuda_now = read(&mut ctx, "'cuda' in gpu_backends")?;
        assert_ne!(cuda_then, cuda_now, "the constraint did not change");
        assert_eq!(ctx.relation(cuda_now, always)?, RelationKind::Implies);
        assert_eq!(ctx.relation(cuda_then, always)?, RelationKind::Implies);
        assert_eq!(ctx.relation(always, cuda_then)?, RelationKind::ImpliedBy);
        assert_eq!(ctx.cells(cuda_then, always)?, ctx.cells(cuda_now, always)?);
        let related = ctx.relate(cuda_then, always)?;
        assert_eq!(related.kind(), RelationKind::Implies);
        assert!(related.a_not_b.is_none());
        Ok(())
    }

    #[test]
    fn the_cached_constraint_follows_new_literals() -> Result<(), Box<dyn std::error::Error>> {
        let platform = Theory::platform();
        let mut ctx = Context::new();
        let first = ctx.theory_constraint(&platform)?;
        assert_eq!(ctx.theory_constraint(&platform)?, first);
        // A new ABI tag instantiates a new rule: the constraint must change.
        let tag = ctx.translate(&parse("python_abi_tag == 'cp313t'")?)?;
        let second = ctx.theory_constraint(&platform)?;
        assert_ne!(second, first);
        assert_eq!(ctx.theory_constraint(&platform)?, second);
        let free = ctx.translate(&parse("'free-threading' in sys_abi_features")?)?;
        let rule = ctx.or(!tag, free)?;
        assert!(ctx.implies(second, rule)?);
        assert!(!ctx.implies(first, rule)?);
        Ok(())
    }
}
