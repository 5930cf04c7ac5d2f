//! Bad or extreme input never panics: random attribute values and shapes
//! on every op family give maps or "unsupported", and the analyses of every
//! instruction of the example modules succeed or report.

use proptest::prelude::*;

fn analyze_everything(text: &str) {
    let Ok(m) = hlo::parse_module(text) else {
        return;
    };
    for (c, comp) in m.computations.iter().enumerate() {
        for (i, inst) in comp.instructions.iter().enumerate() {
            for out in 0..inst.shape.output_count().min(3) {
                let _ = hlo::output_to_input(&m, c, i, out, false);
                let _ = hlo::output_to_input(&m, c, i, out, true);
            }
            for k in 0..inst.operands.len() {
                let _ = hlo::input_to_output(&m, c, i, k, false);
            }
        }
        let _ = hlo::to_parameters(&m, c, 0);
        let _ = hlo::parameters_to_output(&m, c, 0);
    }
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        -3i64..8,
        Just(i64::MAX),
        Just(i64::MIN),
        Just(i64::MAX / 2),
        Just(-1)
    ]
}

fn size() -> impl Strategy<Value = i64> {
    prop_oneof![0i64..6, Just(i64::MAX), Just(1i64 << 62)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_attributes_never_panic(
        a in size(), b in size(), c in size(), d in size(),
        x in int(), y in int(), z in int(), w in int(), v in int(),
        which in 0usize..12,
    ) {
        let text = match which {
            0 => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n ROOT s = f32[{c},{d}] slice(p0), slice={{[{x}:{y}:{z}], [{w}:{v}]}}\n}}"),
            1 => format!("ENTRY e {{\n p0 = f32[{a}] parameter(0)\n p1 = f32[] parameter(1)\n ROOT p = f32[{b}] pad(p0, p1), padding={x}_{y}_{z}\n}}"),
            2 => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n p1 = f32[] parameter(1)\n ROOT r = f32[{c},{d}] reduce-window(p0, p1), window={{size={x}x{y} stride={z}x1 pad={w}_{v}x0_0 lhs_dilate=1x{z} rhs_dilate={y}x1}}, to_apply=e\n}}"),
            3 => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n ROOT r = f32[{c},{d}] reshape(p0)\n}}"),
            4 => format!("ENTRY e {{\n p0 = f32[{a},{b}]{{0,1}} parameter(0)\n ROOT r = f32[{c},{d}] bitcast(p0)\n}}"),
            5 => format!("ENTRY e {{\n p0 = f32[{a},{b},{c}] parameter(0)\n p1 = f32[{d},{a},{b}] parameter(1)\n ROOT r = f32[{a},{b},{c}] dot(p0, p1), lhs_batch_dims={{{x}}}, rhs_batch_dims={{{y}}}, lhs_contracting_dims={{{z}}}, rhs_contracting_dims={{{w}}}\n}}"),
            6 => format!("ENTRY e {{\n p0 = f32[1,{a},{b},2] parameter(0)\n p1 = f32[{c},{d},2,3] parameter(1)\n ROOT r = f32[1,{a},{b},3] convolution(p0, p1), window={{size={c}x{d} stride={x}x1 pad={y}_{z}x0_0 lhs_dilate={w}x1}}, dim_labels=b01f_01io->b01f, feature_group_count={v}\n}}"),
            7 => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n p1 = s32[{c},2] parameter(1)\n ROOT g = f32[{c},{d},{a}] gather(p0, p1), offset_dims={{1,2}}, collapsed_slice_dims={{}}, start_index_map={{{x},{y}}}, index_vector_dim={z}, slice_sizes={{{d},{a}}}\n}}"),
            8 => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n p1 = s32[] parameter(1)\n p2 = s32[] parameter(2)\n ROOT d = f32[{c},{d}] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={{{c},{d}}}\n}}"),
            9 => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n ROOT t = f32[{c},{d}] transpose(p0), dimensions={{{x},{y}}}\n}}"),
            10 => format!("ENTRY e {{\n p0 = f32[{a}] parameter(0)\n p1 = f32[{b}] parameter(1)\n ROOT c = f32[{c}] concatenate(p0, p1), dimensions={{{x}}}\n}}"),
            _ => format!("ENTRY e {{\n p0 = f32[{a},{b}] parameter(0)\n ROOT b = f32[{c},{a},{d}] broadcast(p0), dimensions={{{x},{y}}}\n}}"),
        };
        analyze_everything(&text);
    }
}

#[test]
fn every_example_module_analyses_without_panicking() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/hlo");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            hlo::parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            analyze_everything(&text);
            n += 1;
        }
    }
    assert!(n >= 23, "expected the X1-X18 and JAX examples, found {n}");
}
