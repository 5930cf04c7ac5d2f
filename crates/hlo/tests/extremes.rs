//! Zero-size tensors and very long modules.

fn run(text: &str, query: hlo::Query) -> String {
    let module = hlo::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    hlo::analyze(&module, &query).unwrap().to_string()
}

#[test]
fn a_convolution_over_zero_input_features_reads_nothing() {
    let text = "ENTRY e {\n  x = f32[2,3,0] parameter(0)\n  k = f32[1,0,4] parameter(1)\n  ROOT c = f32[2,3,4] convolution(x, k), window={size=1}, dim_labels=b0f_0io->b0f\n}\n";
    let empty = "operand id = 0\nKNOWN EMPTY\noperand id = 1\nKNOWN EMPTY\n";
    assert_eq!(run(text, hlo::Query::default()), empty);
    let i2o = hlo::Query {
        input_to_output: true,
        ..Default::default()
    };
    assert_eq!(run(text, i2o), empty);
    let composed = hlo::Query {
        to_parameters: true,
        ..Default::default()
    };
    assert_eq!(run(text, composed), empty);
}

#[test]
fn an_empty_operand_of_an_elementwise_op_is_known_empty() {
    let text = "ENTRY e {\n  x = f32[0,3] parameter(0)\n  ROOT n = f32[0,3] negate(x)\n}\n";
    assert_eq!(
        run(text, hlo::Query::default()),
        "operand id = 0\nKNOWN EMPTY\n"
    );
}

#[test]
fn a_chain_of_twenty_thousand_ops_parses_and_composes() {
    let n = 20_000;
    let mut text = String::from("ENTRY e {\n  v0 = f32[8] parameter(0)\n");
    for i in 1..=n {
        let root = if i == n { "ROOT " } else { "" };
        let op = if i % 2 == 0 { "negate" } else { "reverse" };
        let attrs = if i % 2 == 0 { "" } else { ", dimensions={0}" };
        text.push_str(&format!("  {root}v{i} = f32[8] {op}(v{}){attrs}\n", i - 1));
    }
    text.push_str("}\n");
    let q = hlo::Query {
        to_parameters: true,
        ..Default::default()
    };
    // An even number of reverses is the identity.
    assert_eq!(
        run(&text, q),
        "operand id = 0\n(d0) -> (d0), domain: d0 in [0, 7]\n"
    );
}
