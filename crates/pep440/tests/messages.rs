//! Every user-visible message, pinned: code, span, message and help for invalid input.

use markerspec_pep440::{Error, Version, VersionSpecifier, VersionSpecifiers};

fn render(err: Error) -> String {
    let mut out = format!("{} {:?}: {}", err.code(), err.span(), err);
    if let Some(help) = err.help() {
        out.push_str("\nhelp: ");
        out.push_str(&help);
    }
    out
}

#[track_caller]
fn version_err(input: &str) -> String {
    match input.parse::<Version>() {
        Ok(v) => panic!("{input:?} parsed as {v}"),
        Err(e) => render(e),
    }
}

#[track_caller]
fn spec_err(input: &str) -> String {
    match input.parse::<VersionSpecifier>() {
        Ok(s) => panic!("{input:?} parsed as {s}"),
        Err(e) => render(e),
    }
}

#[track_caller]
fn specs_err(input: &str) -> String {
    match input.parse::<VersionSpecifiers>() {
        Ok(s) => panic!("{input:?} parsed as {s}"),
        Err(e) => render(e),
    }
}

#[test]
fn version_messages() {
    insta::assert_snapshot!(version_err(""), @"V003 0..0: expected a version, found end of input");
    insta::assert_snapshot!(version_err("french toast"), @"V001 0..6: expected a release number, found `french`");
    insta::assert_snapshot!(version_err("v"), @"V001 1..1: expected a release number after `v`, found end of input");
    insta::assert_snapshot!(version_err("1!"), @"V001 2..2: expected a release number after `!`, found end of input");
    insta::assert_snapshot!(version_err("1.0."), @"V001 4..4: expected a number or a version tag after `.`, found end of input");
    insta::assert_snapshot!(version_err("1.0foo"), @r"
    V001 3..6: expected a pre-, post- or dev-release tag, found `foo`
    help: use `a`, `b`, `rc`, `.post` or `.dev`, or put other text in a local label after `+`
    ");
    insta::assert_snapshot!(version_err("1.0-"), @"V001 4..4: expected a number or a version tag after `-`, found end of input");
    insta::assert_snapshot!(version_err("1.0!2"), @r"
    V001 3..4: expected end of version, found `!`
    help: an epoch is one number followed by `!` at the start, as in `1!2.0`
    ");
    insta::assert_snapshot!(version_err("1.0+"), @"V010 4..4: expected a local version label after `+`, found end of input");
    insta::assert_snapshot!(version_err("1.0+abc."), @"V010 8..8: expected a letter or digit after `.` in local version label, found end of input");
    insta::assert_snapshot!(version_err("1.0+ubuntu~1"), @r"
    V010 10..11: invalid character `~` in local version label
    help: a local version label holds ASCII letters and digits separated by `.`, `-` or `_`
    ");
    insta::assert_snapshot!(version_err("1.0 extra"), @"V008 4..9: expected end of version, found `extra`");
    insta::assert_snapshot!(version_err("1.0.*"), @r"
    V008 3..5: expected end of version, found `.*`
    help: a wildcard is only allowed in a specifier with `==` or `!=`, as in `==1.0.*`
    ");
    insta::assert_snapshot!(version_err("1.0.dev1.post1"), @r"
    V008 8..14: expected end of version, found `.post1`
    help: the parts of a version go in this order: epoch `N!`, release `1.2`, pre-release `a1`/`b1`/`rc1`, post-release `.post1`, dev-release `.dev1`, local label `+abc`
    ");
    insta::assert_snapshot!(version_err("1.0a1.2"), @r"
    V008 5..7: expected end of version, found `.2`
    help: all release numbers come before the pre-, post- and dev-release tags
    ");
    insta::assert_snapshot!(version_err("1.18446744073709551616"), @"V002 2..22: expected a release number of at most 18446744073709551615, found `18446744073709551616`");
    insta::assert_snapshot!(version_err("18446744073709551616!1"), @"V002 0..20: expected an epoch of at most 18446744073709551615, found `18446744073709551616`");
    insta::assert_snapshot!(version_err("1.0+é"), @"V010 4..6: expected a local version label after `+`, found `é`");
}

#[test]
fn specifier_messages() {
    insta::assert_snapshot!(spec_err("1.0"), @r"
    V007 0..3: expected a comparison operator, found `1.0`
    help: add an operator before the version, such as `==` or `>=`
    ");
    insta::assert_snapshot!(spec_err("=1.0"), @r"
    V007 0..1: expected a comparison operator, found `=`
    help: use `==` to compare for equality
    ");
    insta::assert_snapshot!(spec_err("=>1.0"), @r"
    V007 0..2: expected a comparison operator, found `=>`
    help: did you mean `>=`?
    ");
    insta::assert_snapshot!(spec_err("~>1.0"), @r"
    V007 0..2: expected a comparison operator, found `~>`
    help: did you mean `~=`?
    ");
    insta::assert_snapshot!(spec_err(">="), @"V003 2..2: expected a version after `>=`, found end of input");
    insta::assert_snapshot!(spec_err(">=1.0.*"), @r"
    V004 5..7: wildcard `.*` is not allowed with `>=`
    help: only `==` and `!=` accept a wildcard; drop the `.*` to compare with `>=`
    ");
    insta::assert_snapshot!(spec_err("~=1.0.*"), @r"
    V004 5..7: wildcard `.*` is not allowed with `~=`
    help: `~=` already matches a range; drop the `.*`, or use `==` with the wildcard
    ");
    insta::assert_snapshot!(spec_err("<=1.0+abc"), @r"
    V005 5..9: local version label `+abc` is not allowed with `<=`
    help: a local version label can only be used with `==`, `!=` and `===`; drop it
    ");
    insta::assert_snapshot!(spec_err("~=1"), @r"
    V006 2..3: expected at least two release segments after `~=`, found `1`
    help: add a release number, as in `~=1.0` for `>=1.0, ==1.*`
    ");
    insta::assert_snapshot!(spec_err("==1.0a1.*"), @r"
    V011 7..9: wildcard `.*` is not allowed after a pre-, post-, dev-release or local label
    help: a wildcard can only follow the release numbers, as in `==1.0.*`
    ");
    insta::assert_snapshot!(spec_err("===foo;"), @"V012 6..7: invalid character `;` in `===` version text");
    insta::assert_snapshot!(spec_err("===foo bar"), @r"
    V008 7..10: expected end of specifier, found `bar`
    help: `===` text cannot contain whitespace
    ");
    insta::assert_snapshot!(spec_err(">=1.0 <2"), @r"
    V008 6..8: expected end of specifier, found `<2`
    help: separate specifiers with a comma, as in `>=1.0, <2.0`
    ");
    insta::assert_snapshot!(spec_err("!==1"), @r"
    V007 0..3: expected a comparison operator, found `!==`
    help: did you mean `!=`?
    ");
}

#[test]
fn specifier_list_messages() {
    insta::assert_snapshot!(specs_err(">=1.0, =>2"), @r"
    V007 7..9: expected a comparison operator, found `=>`
    help: did you mean `>=`?
    ");
    insta::assert_snapshot!(specs_err(">=1.0,<2,foo"), @"V007 9..12: expected a comparison operator, found `foo`");
}
