//! Tuple elements and runtime variables through composition: every element
//! read keeps its maps, and runtime variables name their source in the
//! caller.

fn run(text: &str, query: hlo::Query) -> String {
    let module = hlo::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    hlo::analyze(&module, &query).unwrap().to_string()
}

fn to_parameters() -> hlo::Query {
    hlo::Query {
        to_parameters: true,
        ..Default::default()
    }
}

const TWO_ELEMENTS: &str = "HloModule m\nENTRY e {\n  p = (f32[4], f32[4]) parameter(0)\n  g1 = f32[4] get-tuple-element(p), index=1\n  g0 = f32[4] get-tuple-element(p), index=0\n  r = f32[4] reverse(g1), dimensions={0}\n  ROOT a = f32[4] add(r, g0)\n}\n";

#[test]
fn every_tuple_element_read_keeps_its_map() {
    let expected = "operand id = 0\ntuple element 0:\n(d0) -> (d0), domain: d0 in [0, 3]\ntuple element 1:\n(d0) -> (-d0 + 3), domain: d0 in [0, 3]\n";
    assert_eq!(run(TWO_ELEMENTS, to_parameters()), expected);
    let backwards = hlo::Query {
        input_to_output: true,
        ..to_parameters()
    };
    assert_eq!(run(TWO_ELEMENTS, backwards), expected);
}

#[test]
fn get_tuple_element_says_which_element() {
    let q = hlo::Query {
        instruction: Some("g1".into()),
        ..Default::default()
    };
    assert_eq!(
        run(TWO_ELEMENTS, q),
        "operand id = 0\ntuple element 1:\n(d0) -> (d0), domain: d0 in [0, 3]\n"
    );
    let back = hlo::Query {
        instruction: Some("g1".into()),
        input_to_output: true,
        ..Default::default()
    };
    assert_eq!(
        run(TWO_ELEMENTS, back),
        "operand id = 0\ntuple element 1:\n(d0) -> (d0), domain: d0 in [0, 3]\n"
    );
}

const CALL_OF_TUPLE: &str = "HloModule m\ncallee {\n  q = (f32[4], f32[6]) parameter(0)\n  g = f32[6] get-tuple-element(q), index=1\n  ROOT s = f32[3] slice(g), slice={[1:4]}\n}\nENTRY e {\n  x = f32[4] parameter(0)\n  y = f32[6] parameter(1)\n  t = (f32[4], f32[6]) tuple(x, y)\n  ROOT c = f32[3] call(t), to_apply=callee\n}\n";

#[test]
fn a_call_of_a_tuple_reads_the_element_its_callee_reads() {
    assert_eq!(
        run(CALL_OF_TUPLE, to_parameters()),
        "operand id = 0\noperand id = 1\n(d0) -> (d0 + 1), domain: d0 in [0, 2]\n"
    );
    assert_eq!(
        run(CALL_OF_TUPLE, hlo::Query::default()),
        "operand id = 0\ntuple element 1:\n(d0) -> (d0 + 1), domain: d0 in [0, 2]\n"
    );
    let i2o = hlo::Query {
        input_to_output: true,
        ..Default::default()
    };
    assert_eq!(
        run(CALL_OF_TUPLE, i2o),
        "operand id = 0\ntuple element 1:\n(d0) -> (d0 - 1), domain: d0 in [1, 3]\n"
    );
    let both = hlo::Query {
        input_to_output: true,
        ..to_parameters()
    };
    assert_eq!(
        run(CALL_OF_TUPLE, both),
        "operand id = 0\noperand id = 1\n(d0) -> (d0 - 1), domain: d0 in [1, 3]\n"
    );
}

#[test]
fn nested_tuple_elements_are_unsupported_not_dropped() {
    let text = "ENTRY e {\n  p = ((f32[4], f32[4]), f32[2]) parameter(0)\n  i = (f32[4], f32[4]) get-tuple-element(p), index=0\n  g = f32[4] get-tuple-element(i), index=1\n  ROOT n = f32[4] negate(g)\n}\n";
    assert_eq!(
        run(text, to_parameters()),
        "operand id = 0 unknown indexing\n"
    );
}

const FUSED_DYNAMIC_SLICE: &str = "HloModule m\nfused {\n  i = s32[] parameter(0)\n  x = f32[10] parameter(1)\n  ROOT ds = f32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}\n}\nENTRY e {\n  x = f32[10] parameter(0)\n  i = s32[] parameter(1)\n  ROOT f = f32[3] fusion(i, x), kind=kLoop, calls=fused\n}\n";

#[test]
fn runtime_variables_name_the_entry_parameter() {
    let out = run(FUSED_DYNAMIC_SLICE, to_parameters());
    assert!(
        out.contains("rt0: parameter(1);"),
        "the offset is entry parameter 1 (`i`):\n{out}"
    );
    let module = hlo::parse_module(FUSED_DYNAMIC_SLICE).unwrap();
    let r = hlo::analyze(&module, &hlo::Query::default()).unwrap();
    let rt = &r.operands[1].indexing.maps().unwrap()[0].runtime[0];
    assert_eq!(rt.source, "parameter(1)");
    assert_eq!(
        (rt.operand, rt.operand_name.as_deref()),
        (Some(0), Some("i"))
    );
}

const FUSED_GATHER: &str = "HloModule m\nfused {\n  i = s32[3,1] parameter(0)\n  x = f32[8,4] parameter(1)\n  ROOT g = f32[3,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}\n}\nENTRY e {\n  x = f32[8,4] parameter(0)\n  i = s32[3,1] parameter(1)\n  ROOT f = f32[3,4] fusion(i, x), kind=kLoop, calls=fused\n}\n";

#[test]
fn a_fused_gather_names_the_entry_parameter_of_its_indices() {
    let out = run(FUSED_GATHER, to_parameters());
    assert_eq!(
        out,
        "operand id = 0\n(d0, d1){rt0} -> (rt0, d1), domain: d0 in [0, 2], d1 in [0, 3], rt0 in [0, 7]\nruntime variables:\nrt0: parameter(1); (d0, d1) -> (d0, 0), domain: d0 in [0, 2], d1 in [0, 3]\noperand id = 1\n(d0, d1) -> (d0, 0), domain: d0 in [0, 2], d1 in [0, 3]\n"
    );
}

/// An offset computed inside the fusion (not a parameter of it).
const FUSED_COMPUTED_OFFSET: &str = "HloModule m\nfused {\n  i = s32[] parameter(0)\n  x = f32[10] parameter(1)\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  ROOT ds = f32[3] dynamic-slice(x, j), dynamic_slice_sizes={3}\n}\nENTRY e {\n  x = f32[10] parameter(0)\n  i = s32[] parameter(1)\n  ROOT f = f32[3] fusion(i, x), kind=kLoop, calls=fused\n}\n";

#[test]
fn a_value_computed_inside_a_fusion_is_named_in_the_caller_both_ways() {
    let module = hlo::parse_module(FUSED_COMPUTED_OFFSET).unwrap();
    let sources = |query: hlo::Query| -> Vec<String> {
        let r = hlo::analyze(&module, &query).unwrap();
        r.operands
            .iter()
            .filter_map(|o| o.indexing.maps())
            .flatten()
            .flat_map(|m| m.runtime.iter().map(|rt| rt.source.clone()))
            .collect()
    };
    let forward = sources(hlo::Query::default());
    let backward = sources(hlo::Query {
        input_to_output: true,
        ..Default::default()
    });
    assert_eq!(forward, ["fused/j"]);
    assert_eq!(backward, forward, "input-to-output names the same source");
}
