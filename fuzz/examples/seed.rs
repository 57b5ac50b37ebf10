//! Writes the seed corpora into `fuzz/corpus/<target>/`, one input per file, named by a hash of
//! the content, from the repository's test data:
//!
//! * `tests/data/packaging-oracle/{corpus,grammar}.txt` and `tests/data/requires-dist-gpu-stack.txt`
//!   (one input per line; a line `#!json "…"` holds a JSON string) for `parse_requirement`,
//!   and those lines and their markers (the text after the first `;`) for `parse_marker`;
//! * the version and specifier texts found in those lines for `version` and `specifier`
//!   (a specifier list followed by candidate versions, one per line);
//! * `spec/environments/*.json`, and variants with Unknown, Absent and set values, for
//!   `environment_json` and `env_fixture` (which also gets override values);
//! * fixed pseudo-random bytes for the structure-aware `roundtrip_ast`, `evaluate` and
//!   `algebra_laws`.
//!
//! The output depends only on those files. Run it through `fuzz/seed.sh`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn fnv(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

struct Out {
    root: PathBuf,
    written: usize,
}

impl Out {
    fn write(&mut self, target: &str, inputs: &BTreeSet<Vec<u8>>) {
        let dir = self.root.join(target);
        fs::create_dir_all(&dir).expect("create the corpus directory");
        for input in inputs {
            let path = dir.join(format!("seed-{:016x}", fnv(input)));
            fs::write(path, input).expect("write a seed");
            self.written += 1;
        }
        println!("{target}: {} seeds", inputs.len());
    }
}

/// The inputs of a line-oriented data file.
fn lines(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .filter_map(|line| match line.strip_prefix("#!json ") {
            Some(json) => serde_json::from_str::<String>(json).ok(),
            None => Some(line.to_string()),
        })
        .collect()
}

fn is_op_char(c: char) -> bool {
    matches!(c, '<' | '>' | '=' | '!' | '~')
}

/// Version-looking tokens: after an operator, or inside quotes, starting with a digit or `v`.
fn version_tokens(line: &str, out: &mut BTreeSet<String>) {
    for token in line.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '"' | '\'')
    }) {
        let token = token.trim_start_matches(is_op_char);
        if token.starts_with(|c: char| c.is_ascii_digit() || c == 'v' || c == 'V')
            && token.len() <= 64
        {
            out.insert(token.to_string());
        }
    }
}

/// The specifier list of a requirement line: from the first operator to the marker.
fn specifier_list(line: &str) -> Option<String> {
    let head = line.split(';').next()?;
    let start = head.find(is_op_char)?;
    let name = &head[..start];
    if !name
        .trim_start()
        .starts_with(|c: char| c.is_ascii_alphanumeric())
        || head.contains(['"', '\''])
    {
        return None;
    }
    let list = head[start..].trim().trim_end_matches(')').trim();
    (!list.is_empty()).then(|| list.to_string())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let repo = PathBuf::from(args.next().expect("usage: seed REPO_ROOT CORPUS_DIR"));
    let corpus = PathBuf::from(args.next().expect("usage: seed REPO_ROOT CORPUS_DIR"));
    let mut out = Out {
        root: corpus,
        written: 0,
    };

    let sources = [
        repo.join("tests/data/packaging-oracle/corpus.txt"),
        repo.join("tests/data/packaging-oracle/grammar.txt"),
        repo.join("tests/data/requires-dist-gpu-stack.txt"),
    ];
    let all: Vec<String> = sources.iter().flat_map(|p| lines(p)).collect();

    let requirements: BTreeSet<Vec<u8>> = all.iter().map(|l| l.as_bytes().to_vec()).collect();
    out.write("parse_requirement", &requirements);

    let mut markers = requirements.clone();
    for line in &all {
        if let Some((_, marker)) = line.split_once(';') {
            markers.insert(marker.trim().as_bytes().to_vec());
        }
    }
    out.write("parse_marker", &markers);

    let mut versions = BTreeSet::new();
    for line in &all {
        version_tokens(line, &mut versions);
    }
    for v in [
        "1.0",
        "1.0.0",
        "1!2.0rc1.post2.dev3+ubuntu.1",
        "1.0a",
        "1.0-1",
        "v1.0",
        " 1.0 ",
        "1.0.POST",
        "1.0+abc.1",
        "1.0+1",
        "1.0.dev0",
        "1.0a1.post0",
        "18446744073709551615",
        "1.0.*",
    ] {
        versions.insert(v.to_string());
    }
    let versions: Vec<String> = versions.into_iter().collect();
    let mut version_inputs: BTreeSet<Vec<u8>> =
        versions.iter().map(|v| v.as_bytes().to_vec()).collect();
    // Triples of neighbours in text order, for the ordering laws.
    for w in versions.windows(3).step_by(3) {
        version_inputs.insert(w.join("\n").into_bytes());
    }
    out.write("version", &version_inputs);

    let mut lists = BTreeSet::new();
    for line in &all {
        if let Some(list) = specifier_list(line) {
            lists.insert(list);
        }
    }
    let mut spec_inputs = BTreeSet::new();
    for (i, list) in lists.iter().enumerate() {
        spec_inputs.insert(list.as_bytes().to_vec());
        // The versions the list mentions, and two more, as candidates.
        let mut candidates = BTreeSet::new();
        version_tokens(list, &mut candidates);
        let mut input = list.clone();
        for v in candidates.iter().take(2) {
            input.push('\n');
            input.push_str(v);
        }
        for k in 0..2 {
            if let Some(v) = versions.get((i * 7 + k * 13) % versions.len().max(1)) {
                input.push('\n');
                input.push_str(v);
            }
        }
        spec_inputs.insert(input.into_bytes());
    }
    out.write("specifier", &spec_inputs);

    let mut envs = BTreeSet::new();
    let mut fixtures: Vec<PathBuf> = fs::read_dir(repo.join("spec/environments"))
        .expect("read spec/environments")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    fixtures.sort();
    for path in &fixtures {
        let bytes = fs::read(path).expect("read a fixture");
        envs.insert(bytes.clone());
        let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(&bytes) else {
            continue;
        };
        let variants: [(&str, serde_json::Value); 6] = [
            ("cuda_version", serde_json::json!(null)),
            ("cuda_version", serde_json::json!("12.4")),
            ("gpu_backends", serde_json::json!(["cuda", "rocm"])),
            ("gpu_backends", serde_json::json!([])),
            ("extras", serde_json::json!(["Test_Extra"])),
            ("python_version", serde_json::json!(null)),
        ];
        for (key, value) in variants {
            let mut m = map.clone();
            m.insert(key.to_string(), value);
            envs.insert(serde_json::to_vec(&m).expect("serialise"));
        }
    }
    out.write("environment_json", &envs);
    // Environment documents are the same JSON; override values are one line.
    let mut fixture_inputs = envs.clone();
    for v in [
        "12.4",
        "",
        "cuda,rocm",
        "cuda rocm",
        "8.6,9.0",
        "gfx90a",
        "x86_64",
        "free-threading",
        "nvidia :: cuda :: 12",
        "3.12.1",
        "linux",
        "2.35",
    ] {
        fixture_inputs.insert(v.as_bytes().to_vec());
    }
    out.write("env_fixture", &fixture_inputs);

    // xorshift64*, fixed seed: the same bytes on every machine.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut random = BTreeSet::new();
    for i in 0..64 {
        let len = 16 + (i * 37) % 496;
        random.insert((0..len).map(|_| (next() >> 56) as u8).collect::<Vec<u8>>());
    }
    out.write("roundtrip_ast", &random);
    out.write("evaluate", &random);
    out.write("algebra_laws", &random);

    println!("{} files", out.written);
}
