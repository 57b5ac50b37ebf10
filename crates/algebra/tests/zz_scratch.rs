use markerspec_algebra::{Context, Theory};
use markerspec_pep508::MarkerTree;
#[test]
fn scratch() {
    for (a, b) in [
        ("python_version >= '3' or python_version <= '3'", "true"),
        ("python_version > '3.6'", "python_version <= '3.6'"),
        ("'Windows' in os_name", "'Windows' not in os_name"),
        (
            "python_version >= '0' and sys_platform == 'win32'",
            "sys_platform == 'win32'",
        ),
    ] {
        let mut ctx = Context::new();
        let ta: MarkerTree = a.parse().unwrap();
        let tb: MarkerTree = b.parse().unwrap();
        let ma = ctx.from_marker(&ta, &Theory::none()).unwrap();
        let mb = ctx.from_marker(&tb, &Theory::none()).unwrap();
        let nb = ctx.not(mb);
        let rel = ctx.relate(ma, nb).unwrap();
        println!(
            "{a} | {b}: a and not(b) witness {:?}; neither {:?}",
            rel.a_and_b
                .as_ref()
                .map(|w| ctx.witness_environment(ma, w).map(|e| format!("{e:?}"))),
            rel.neither.as_ref().map(|w| format!("{w:?}"))
        );
        println!("  printed a: {}", ctx.to_marker_string(ma).unwrap());
    }
}
