//! markerspec's own implementation, as an [`Implementation`].

use markerspec_pep508 as pep508;
use markerspec_pep508::{MarkerTree, ParseOptions, Requirement, Truth};

use crate::case::{Dialect, Expected, Kind, Profile};
use crate::runner::{Evaluated, Implementation, Parsed, Request, TestResult};

/// `markerspec-pep508`, under the `spec-2026`, `packaging` and `uv` profiles.
///
/// ```
/// use markerspec_conformance::{Cases, Runner, builtin::Markerspec};
/// Runner::new()
///     .include("spec-examples")
///     .blacklist(Markerspec::BLACKLIST)
///     .run(&Cases::all(), &mut Markerspec::new())
///     .assert();
///
/// // A case's environment, as markerspec evaluates in it.
/// use markerspec_conformance::{Profile, Request};
/// use markerspec_pep508::{EnvValue, Field};
/// let cases = Cases::all();
/// let case = cases.get("versions/prereleases-117").unwrap();
/// let request = Request { case, profile: Profile::Spec2026 };
/// assert_eq!(request.environment(), case.environment());
/// assert!(request.extras().is_empty());
/// let env = Markerspec::environment(&request).unwrap();
/// assert_eq!(env.get(Field::PythonFullVersion), Some(&EnvValue::String("3.14.0rc1".into())));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Markerspec {
    _private: (),
}

/// The reason for the declared `packaging` divergences on the legacy `extra` in lock files.
const PACKAGING_LOCK_FILE_EXTRA: &str = "packaging 26.4 leaves `extra` undefined in lock-file \
     context (`UndefinedEnvironmentName`, E001); the `packaging` profile does not know the \
     context when it evaluates and compares `extra` with the requested extras";

impl Markerspec {
    /// The implementation.
    ///
    /// See the example on [`Markerspec`].
    pub fn new() -> Markerspec {
        Markerspec::default()
    }

    /// Where markerspec knowingly differs from what the vectors pin, with the reason.
    pub const BLACKLIST: &'static [(&'static str, &'static str)] = &[
        (
            "uv:*#canonical",
            "uv prints the simplified decision-diagram form of a marker (`python_version <= \"3.12\"` \
             as `python_full_version < '3.13'`, comparisons it dropped left out); markerspec \
             reproduces what uv accepts and evaluates, and prints the marker as written",
        ),
        (
            "packaging:extras/merged-text-100",
            PACKAGING_LOCK_FILE_EXTRA,
        ),
        (
            "packaging:extras/merged-text-101",
            PACKAGING_LOCK_FILE_EXTRA,
        ),
        (
            "packaging:extras/merged-text-102",
            PACKAGING_LOCK_FILE_EXTRA,
        ),
        (
            "uv:findings/boolean-logic-110",
            "the words `true` and `false` as a whole marker are markerspec's printed constants, \
             read back under the `uv` profile so that every printed marker parses; uv-pep508 \
             0.0.98 rejects them",
        ),
        (
            "packaging:marker-syntax/escapes-118",
            "`\\N{NAME}` escapes in quoted strings need Unicode's name table; markerspec \
             rejects them (M007)",
        ),
        (
            "packaging:marker-syntax/escapes-119",
            "`\\N{NAME}` escapes in quoted strings need Unicode's name table; markerspec \
             rejects them (M007)",
        ),
        (
            "packaging:marker-syntax/escapes-120",
            "`\\N{NAME}` escapes in quoted strings need Unicode's name table; markerspec \
             rejects them (M007)",
        ),
        (
            "packaging:requirements/specifiers-2091",
            "packaging's `===` token swallows the commas after it and re-splits them, skipping \
             empty items (`pkg===a,,>=1`); markerspec rejects the empty item",
        ),
        (
            "packaging:requirements/specifiers-2092",
            "packaging's `===` token swallows the commas after it and re-splits them, skipping \
             empty items (`pkg===a,,>=1`); markerspec rejects the empty item",
        ),
        (
            "packaging:requirements/specifiers-2094",
            "packaging's `===` token swallows the commas after it and re-splits them, skipping \
             empty items (`pkg===a,,>=1`); markerspec rejects the empty item",
        ),
        (
            "packaging:requirements/error-codes-109",
            "markerspec's version numbers are 64-bit (V002); Python's integers are unbounded",
        ),
        (
            "packaging:fuzz-findings/finding-101",
            PACKAGING_IDENTITY_COMMAS,
        ),
        ("packaging:fuzz-findings/finding-103", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-104", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-105", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-106", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-107", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-108", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-109", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-110", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-111", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-112", SIXTY_FOUR_BIT),
        ("packaging:fuzz-findings/finding-113", SIXTY_FOUR_BIT),
        ("uv:fuzz-findings/finding-131", UV_U64_MAX),
        ("uv:fuzz-findings/finding-132", UV_U64_MAX),
        (
            "uv:fuzz-findings/finding-135",
            "not yet reproduced: on `darwin`, uv-pep508 0.0.98 answers `\"\" in platform_release` \
             false when the release is not a version (`5.15.167.4-microsoft-standard-WSL2`); the \
             `uv` profile still tests the substring (found by `markerspec fuzz`)",
        ),
        ("uv:fuzz-findings/finding-133", UV_U64_MAX),
        ("uv:fuzz-findings/finding-134", UV_U64_MAX),
        ("uv:fuzz-findings/finding-136", UV_U64_MAX),
        ("uv:fuzz-findings/finding-137", UV_U64_MAX),
        ("uv:fuzz-findings/finding-138", UV_U64_MAX),
        ("uv:fuzz-findings/finding-139", UV_U64_MAX),
        ("uv:limits/nesting-106", UV_NESTING),
        ("uv:limits/nesting-107", UV_NESTING),
        ("uv:limits/nesting-111", UV_NESTING),
        ("uv:limits/nesting-112", UV_NESTING),
    ];

    fn options(request: &Request<'_>, profile: pep508::Profile) -> ParseOptions {
        ParseOptions::default()
            .dialect(request.case.dialect())
            .profile(profile)
            .lock_file(request.case.lock_file())
    }

    /// Parses the input; `Ok((canonical, marker))`.
    fn parse_input(
        request: &Request<'_>,
        profile: pep508::Profile,
    ) -> Result<(String, Option<MarkerTree>), pep508::Error> {
        let opts = Markerspec::options(request, profile);
        match request.case.kind() {
            Kind::Requirement => Requirement::parse_with(request.input(), &opts, &mut |_| {})
                .map(|r| (r.to_string(), r.marker().cloned())),
            Kind::Marker => MarkerTree::parse_with(request.input(), &opts, &mut |_| {})
                .map(|m| (m.to_string(), Some(m))),
        }
    }

    /// The case's environment as markerspec's [`pep508::Environment`].
    ///
    /// See the example on [`Markerspec`].
    pub fn environment(request: &Request<'_>) -> Result<pep508::Environment, String> {
        let env = pep508::Environment::from_document(request.environment())
            .map_err(|e| format!("invalid environment: {e}"))?;
        Ok(env.with_extras(request.extras()))
    }
}

const SIXTY_FOUR_BIT: &str = "markerspec's version numbers are 64-bit: a literal with a larger \
     number is no version and compares as a string; Python's integers are unbounded, so packaging \
     compares it as a version (found by `markerspec fuzz`)";

const PACKAGING_IDENTITY_COMMAS: &str = "packaging's `===` token swallows what follows it up to \
     whitespace, `;` or `)`, commas and operators included (`n===4,<\u{a0}1` is `===4,<` and then \
     garbage); markerspec ends the arbitrary string at the comma (found by `markerspec fuzz`)";

const UV_U64_MAX: &str = "uv-pep508 0.0.98 reads a release number of 18446744073709551615 (u64::MAX) \
     in a marker's version and then answers true where the comparison is false \
     (`python_version > '7.18446744073709551615'` on Python 3.10), an overflow in its version \
     ranges; markerspec compares the version as written (found by `markerspec fuzz`)";

const UV_NESTING: &str = "markerspec bounds parenthesis nesting at 200 levels by default (L002, \
     `ParseOptions::max_nesting`), in every profile; uv-pep508 parses by recursion without a limit";

impl Implementation for Markerspec {
    fn name(&self) -> &str {
        "builtin"
    }

    fn reports_codes(&self) -> bool {
        true
    }

    fn supports(&self, _profile: Profile, _dialect: Dialect) -> bool {
        true
    }

    fn parse(&mut self, request: &Request<'_>) -> TestResult<Parsed> {
        let profile = request.profile.marker_profile();
        TestResult::Ok(match Markerspec::parse_input(request, profile) {
            Ok((canonical, _)) => Parsed::Valid {
                canonical: Some(canonical),
            },
            Err(e) => Parsed::Invalid {
                code: Some(e.code().to_string()),
                message: Some(e.message()),
            },
        })
    }

    fn evaluate(&mut self, request: &Request<'_>) -> TestResult<Evaluated> {
        let profile = request.profile.marker_profile();
        let marker = match Markerspec::parse_input(request, profile) {
            Ok((_, marker)) => marker,
            Err(e) => {
                return TestResult::Ok(Evaluated::Invalid {
                    code: Some(e.code().to_string()),
                    message: Some(e.message()),
                });
            }
        };
        let Some(marker) = marker else {
            return TestResult::Ok(Evaluated::result(Expected::True));
        };
        let env = match Markerspec::environment(request) {
            Ok(env) => env,
            Err(e) => return TestResult::Fail(e),
        };
        TestResult::Ok(match marker.evaluate_tristate(&env) {
            Ok(e) => Evaluated::result(match e.truth {
                Truth::True => Expected::True,
                Truth::False => Expected::False,
                Truth::Unknown => {
                    let mut names: Vec<String> =
                        e.unknown.iter().map(|f| f.name().to_string()).collect();
                    names.sort();
                    Expected::Unknown(names)
                }
            }),
            Err(e) => Evaluated::Result {
                result: Expected::Error(Some(e.code().to_string())),
                message: Some(e.message()),
            },
        })
    }
}
