//! Parser tests: the corpus modules parse, malformed text gives located
//! errors, and no truncation of a valid module panics.

use proptest::prelude::*;
use std::path::PathBuf;

fn corpus() -> Option<Vec<(String, String)>> {
    // `$RANGEFINDER_SHARED`, or the `shared` directory beside the checkout.
    let shared = std::env::var_os("RANGEFINDER_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let path = shared.join("conformance/xla/cases.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("note: {} is absent; skipping", path.display());
        return None;
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(h) = v["hlo"].as_str() {
            out.push((v["id"].as_str().unwrap().to_string(), h.to_string()));
        }
    }
    Some(out)
}

#[test]
fn every_corpus_module_parses() {
    let Some(cases) = corpus() else { return };
    assert!(!cases.is_empty());
    for (id, text) in &cases {
        if let Err(e) = hlo::parse_module(text) {
            panic!("{id}: {e}");
        }
    }
}

const SAMPLE: &str = r#"HloModule jit_f, entry_computation_layout={(f32[2,3]{1,0})->f32[3]{0}}

%region_0.4 (Arg_0.5: f32[], Arg_1.6: f32[]) -> f32[] {
  %Arg_0.5 = f32[] parameter(0)
  %Arg_1.6 = f32[] parameter(1)
  ROOT %add.7 = f32[] add(f32[] %Arg_0.5, f32[] %Arg_1.6), metadata={op_name="jit(f)/reduce_sum" source_file="/tmp/x.py" source_line=4}
}

ENTRY %main.9 (Arg_0.1: f32[2,3]) -> f32[3] {
  %Arg_0.1 = f32[2,3]{1,0} parameter(0), sharding={replicated}
  %constant.3 = f32[] constant(0)
  /* a comment */ %c.2 = f32[2] constant({1, 2})
  ROOT %reduce.8 = f32[3]{0} reduce(f32[2,3]{1,0} %Arg_0.1, f32[] %constant.3), dimensions={0}, to_apply=%region_0.4, backend_config={"x":[1,2]}
}
"#;

#[test]
fn jax_style_module_parses() {
    let m = hlo::parse_module(SAMPLE).unwrap();
    assert_eq!(m.name, "jit_f");
    assert_eq!(m.computations.len(), 2);
    let entry = m.entry_computation();
    assert_eq!(entry.name, "main.9");
    let root = entry.root_instruction();
    assert_eq!(root.opcode, hlo::Opcode::Reduce);
    assert_eq!(root.attrs.ints("dimensions"), Some(&[0i64][..]));
    assert_eq!(root.called, vec![0]);
    assert_eq!(entry.instructions[2].literal.as_deref(), Some("{1, 2}"));
}

fn err(text: &str) -> hlo::ParseError {
    hlo::parse_module(text).unwrap_err()
}

#[test]
fn errors_carry_line_column_and_expectation() {
    let e = err("ENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p1)\n}");
    assert_eq!((e.line, e.column), (3, 26), "{e}");
    assert!(e.message.contains("unknown operand `p1`"), "{e}");

    let e = err("ENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT n f32[4] negate(p0)\n}");
    assert_eq!((e.line, e.column), (3, 10), "{e}");
    assert!(e.message.contains("expected `=`"), "{e}");

    let e = err(
        "ENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT s = f32[2] slice(p0), slice={[0:4:0]}\n}",
    );
    assert!(e.message.contains("stride must be positive"), "{e}");

    let e = err("ENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT r = f32[4] reduce(p0, p0), dimensions={0}, to_apply=nowhere\n}");
    assert!(e.message.contains("unknown computation `nowhere`"), "{e}");

    let e = err("ENTRY e {\n  p0 = f32[99999999999999999999] parameter(0)\n}");
    assert!(e.message.contains("does not fit"), "{e}");

    let e = err("ENTRY e {\n  a = f32[4] negate(b)\n  b = f32[4] negate(a)\n}");
    assert!(e.message.contains("depends on itself"), "{e}");

    let e = err("");
    assert!(e.message.contains("expected a computation"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn truncations_give_errors_not_panics(cut in 0usize..SAMPLE.len()) {
        let mut cut = cut;
        while !SAMPLE.is_char_boundary(cut) { cut -= 1; }
        let truncated = &SAMPLE[..cut];
        let result = hlo::parse_module(truncated);
        // A cut inside the entry computation leaves it unclosed; earlier cuts
        // may leave a shorter valid module.
        let last_brace = SAMPLE.rfind('}').unwrap();
        if cut > SAMPLE.find("ENTRY").unwrap() && cut <= last_brace {
            prop_assert!(result.is_err(), "truncation at {} parsed", cut);
            let e = result.unwrap_err();
            prop_assert!(e.span.start <= truncated.len());
        }
    }

    #[test]
    fn byte_mutations_never_panic(pos in 0usize..SAMPLE.len(), byte in proptest::sample::select(b"{}()[],=%:x_-0 \n\"".to_vec())) {
        let mut bytes = SAMPLE.as_bytes().to_vec();
        bytes[pos] = byte;
        if let Ok(text) = String::from_utf8(bytes) {
            let _ = hlo::parse_module(&text);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Arbitrary text over HLO's punctuation, escapes and non-ASCII characters.
    #[test]
    fn arbitrary_text_never_panics(text in "[ENTRY{}()\\[\\],=%:x_\\-0-9a-f \\n\"\\\\é→/*]{0,80}") {
        let _ = hlo::parse_module(&text);
        let _ = hlo::parse_module(&format!("ENTRY e {{\n p0 = f32[2] parameter(0)\n ROOT r = f32[2] negate(p0), metadata={{{text}"));
    }
}
