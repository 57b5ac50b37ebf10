//! The deterministic sample of marker pairs shared by `uv-algebra` and `algebra-bench`.

/// The sample of pairs: every consecutive pair `(i, i + 1)`, then `RANDOM` pairs `(i, j)`,
/// `i != j`, drawn with splitmix64 from a fixed seed. Deterministic, so that the data file is
/// reproducible and the benchmark (`algebra-bench`) times the same pairs.
#[allow(dead_code)]
pub fn pairs(n: usize) -> Vec<(usize, usize)> {
    const RANDOM: usize = 2000;
    let mut out: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    if n < 2 {
        return out;
    }
    let mut state: u64 = 0x0005_eed0_fa16_eb2a;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    while out.len() < n - 1 + RANDOM {
        let i = (next() % n as u64) as usize;
        let j = (next() % n as u64) as usize;
        if i != j {
            out.push((i, j));
        }
    }
    out
}
