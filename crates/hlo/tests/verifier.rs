//! Invalid modules are rejected after parsing with an error at the
//! offending instruction, never analysed.

use hlo::ErrorKind;

/// The error for `body` (an entry computation's instructions), which must
/// be an `Invalid` error on line `line` mentioning `needle`.
fn rejected(body: &str, line: usize, needle: &str) {
    let text = format!("HloModule m\nENTRY e {{\n{body}\n}}\n");
    let e = hlo::parse_module(&text).expect_err(&text);
    assert_eq!(e.kind, ErrorKind::Invalid, "{e}\n{text}");
    assert_eq!(e.line, line, "{e}\n{text}");
    assert!(e.message.contains(needle), "{e} lacks `{needle}`");
}

#[test]
fn transpose_dimensions_must_be_a_permutation() {
    rejected(
        "  p = f32[2,3] parameter(0)\n  ROOT t = f32[3,2] transpose(p), dimensions={1,1}",
        4,
        "twice",
    );
    rejected(
        "  p = f32[2,3] parameter(0)\n  ROOT t = f32[2,3] transpose(p), dimensions={1,0}",
        4,
        "transposed shape",
    );
}

#[test]
fn reduce_over_a_missing_dimension() {
    rejected(
        "  p = f32[2,3] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] reduce(p, z), dimensions={2}, to_apply=e",
        5,
        "rank 2",
    );
}

#[test]
fn get_tuple_element_index_out_of_range() {
    rejected(
        "  p = (f32[4], f32[4]) parameter(0)\n  ROOT g = f32[4] get-tuple-element(p), index=2",
        4,
        "out of range",
    );
    rejected(
        "  p = (f32[4], f32[4]) parameter(0)\n  ROOT g = f32[5] get-tuple-element(p), index=1",
        4,
        "differs",
    );
}

#[test]
fn constants_must_fit_their_type() {
    rejected("  ROOT c = s32[] constant(99999999999)", 3, "s32");
    rejected("  ROOT c = u8[2] constant({1, 256})", 3, "u8");
    hlo::parse_module("ENTRY e {\n  ROOT c = s32[] constant(-2147483648)\n}").unwrap();
}

#[test]
fn operand_counts_follow_the_opcode() {
    rejected("  ROOT b = f32[4] bitcast()", 3, "exactly 1 operand");
    rejected(
        "  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p)",
        4,
        "exactly 2 operands",
    );
    rejected(
        "  p = f32[4] parameter(0)\n  ROOT d = f32[2] dynamic-slice(p), dynamic_slice_sizes={2}",
        4,
        "at least 2 operands",
    );
}

#[test]
fn shapes_follow_the_opcode() {
    rejected(
        "  p = f32[4] parameter(0)\n  q = f32[5] parameter(1)\n  ROOT a = f32[4] add(p, q)",
        5,
        "operand 1",
    );
    rejected(
        "  p = f32[4] parameter(0)\n  ROOT r = f32[5] reshape(p)",
        4,
        "number of elements",
    );
    rejected(
        "  p = f32[4] parameter(0)\n  ROOT s = f32[2] slice(p), slice={[0:5]}",
        4,
        "not a slice",
    );
    rejected(
        "  p = f32[4] parameter(0)\n  q = f32[4] parameter(1)\n  ROOT c = f32[9] concatenate(p, q), dimensions={0}",
        5,
        "8 elements",
    );
}

#[test]
fn unknown_opcodes_are_named() {
    let e = hlo::parse_module("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT c = f32[4] clz(p)\n}")
        .unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Undefined, 3, 19));
}

#[test]
fn deeply_nested_tuple_shapes_are_refused() {
    let deep = format!(
        "ENTRY e {{\n  ROOT p = {}f32[]{} parameter(0)\n}}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = hlo::parse_module(&deep).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooDeep);
    let ok = format!(
        "ENTRY e {{\n  ROOT p = {}f32[]{} parameter(0)\n}}",
        "(".repeat(hlo::MAX_SHAPE_NESTING),
        ")".repeat(hlo::MAX_SHAPE_NESTING)
    );
    hlo::parse_module(&ok).unwrap();
}

#[test]
fn pads_dots_and_updates_follow_their_shapes() {
    rejected(
        "  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT q = f32[7] pad(p, z), padding=1_1_1",
        5,
        "gives 9",
    );
    rejected(
        "  a = f32[2,3] parameter(0)\n  b = f32[4,5] parameter(1)\n  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        5,
        "paired",
    );
    rejected(
        "  a = f32[2,3] parameter(0)\n  b = f32[3,5] parameter(1)\n  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        5,
        "[2, 5]",
    );
    rejected(
        "  a = f32[4] parameter(0)\n  u = f32[5] parameter(1)\n  i = s32[] parameter(2)\n  ROOT d = f32[4] dynamic-update-slice(a, u, i)",
        6,
        "does not fit",
    );
}

#[test]
fn ops_without_maps_say_why() {
    let text = "HloModule m\nENTRY e {\n  x = f32[4,4] parameter(0)\n  ROOT s = f32[4,4] cholesky(x), lower=true\n}\n";
    let m = hlo::parse_module(text).unwrap();
    let r = hlo::analyze(&m, &hlo::Query::default()).unwrap();
    match &r.operands[0].indexing {
        hlo::OperandIndexing::Unsupported(why) => {
            assert!(
                why.message.contains("`cholesky`") && why.message.contains("XLA"),
                "{why}"
            );
            assert_eq!(why.kind, hlo::AnalysisErrorKind::UnsupportedOp);
            assert_eq!(why.instruction.as_deref(), Some("s"));
            let span = why
                .span
                .clone()
                .expect("the error points at the instruction");
            assert_eq!(&text[span.clone()], "s");
            assert!(text[..span.start].ends_with("ROOT "));
        }
        other => panic!("cholesky has no map in XLA: {other:?}"),
    }
}

/// An unknown map inside a fusion points at the instruction in the fused
/// computation that has none, not at the fusion.
#[test]
fn unknown_maps_in_fusions_point_at_the_inner_instruction() {
    let text = "HloModule m\nf {\n  p = f32[2,2] parameter(0)\n  ROOT s = f32[2,2] cholesky(p), lower=true\n}\nENTRY e {\n  x = f32[2,2] parameter(0)\n  ROOT fu = f32[2,2] fusion(x), kind=kLoop, calls=f\n}\n";
    let m = hlo::parse_module(text).unwrap();
    let r = hlo::analyze(&m, &hlo::Query::default()).unwrap();
    let hlo::OperandIndexing::Unsupported(why) = &r.operands[0].indexing else {
        panic!("cholesky has no map in XLA: {:?}", r.operands[0].indexing)
    };
    assert_eq!(why.kind, hlo::AnalysisErrorKind::UnsupportedOp);
    assert_eq!(why.instruction.as_deref(), Some("s"));
    let span = why.span.clone().unwrap();
    assert_eq!(&text[span.clone()], "s");
    assert!(text[..span.start].ends_with("  ROOT "));
    assert!(span.start < text.find("ENTRY").unwrap());
}

/// Calls nested deeper than the analysis follows have no maps: a `Call`
/// error at the call where the limit is reached, inside the module.
#[test]
fn call_errors_name_the_call() {
    let mut text = String::from(
        "HloModule m\nf0 {\n  p = f32[8] parameter(0)\n  ROOT n = f32[8] negate(p)\n}\n",
    );
    for k in 1..80 {
        text.push_str(&format!(
            "f{k} {{\n  p = f32[8] parameter(0)\n  ROOT c{k} = f32[8] call(p), to_apply=f{}\n}}\n",
            k - 1
        ));
    }
    text.push_str(
        "ENTRY e {\n  x = f32[8] parameter(0)\n  ROOT c = f32[8] call(x), to_apply=f79\n}\n",
    );
    let m = hlo::parse_module(&text).unwrap();
    let r = hlo::analyze(&m, &hlo::Query::default()).unwrap();
    let hlo::OperandIndexing::Unsupported(why) = &r.operands[0].indexing else {
        panic!(
            "calls nested 80 deep have no maps: {:?}",
            r.operands[0].indexing
        )
    };
    assert_eq!(why.kind, hlo::AnalysisErrorKind::Call, "{why}");
    assert!(why.message.contains("nest deeper"), "{why}");
    let name = why.instruction.clone().unwrap();
    assert_eq!(&text[why.span.clone().unwrap()], name);
    assert!(name.starts_with('c'), "{name}");
}

#[test]
fn bitcast_convert_follows_the_width_rule() {
    // A narrower type adds a last dimension of the width ratio, a wider one
    // removes it; anything else is refused with the shape expected.
    hlo::parse_module("ENTRY e {\n  p = f32[4] parameter(0)\n  b = u8[4,4] bitcast-convert(p)\n  ROOT w = f32[4] bitcast-convert(b)\n}").unwrap();
    hlo::parse_module(
        "ENTRY e {\n  p = c64[3,2] parameter(0)\n  ROOT w = c128[3] bitcast-convert(p)\n}",
    )
    .unwrap();
    rejected(
        "  p = f32[4] parameter(0)\n  ROOT b = u8[4] bitcast-convert(p)",
        4,
        "gives dimensions [4, 4], not [4]",
    );
    rejected(
        "  p = f32[4] parameter(0)\n  ROOT b = s16[4,4] bitcast-convert(p)",
        4,
        "gives dimensions [4, 2]",
    );
    rejected(
        "  p = u8[4,3] parameter(0)\n  ROOT b = f32[4] bitcast-convert(p)",
        4,
        "needs a last dimension of size 4",
    );
    rejected(
        "  p = u8[4,4] parameter(0)\n  ROOT b = f32[2] bitcast-convert(p)",
        4,
        "gives dimensions [4], not [2]",
    );
    rejected(
        "  p = c64[2] parameter(0)\n  ROOT b = f32[2,2] bitcast-convert(p)",
        4,
        "complex and a real type",
    );
    rejected(
        "  p = f32[2] parameter(0)\n  ROOT b = f6e2m3fn[2,5] bitcast-convert(p)",
        4,
        "not multiples",
    );
    rejected(
        "  p = f32[2] parameter(0)\n  ROOT b = s32[3] bitcast-convert(p)",
        4,
        "gives dimensions [2], not [3]",
    );
}
