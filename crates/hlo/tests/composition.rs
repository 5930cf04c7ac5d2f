//! Composition through computations: long chains simplify as they go,
//! shared sub-expressions do not multiply paths, and nested fusions and
//! multi-output roots are followed.

use hlo::{OperandIndexing, Query};

fn maps_of(text: &str, query: Query) -> Vec<Vec<String>> {
    let m = hlo::parse_module(text).unwrap();
    let r = hlo::analyze(&m, &query).unwrap();
    r.operands
        .iter()
        .map(|e| match &e.indexing {
            OperandIndexing::Maps(maps) => maps.iter().map(|m| m.map.to_string()).collect(),
            OperandIndexing::Unsupported(why) => vec![format!("unsupported: {why}")],
        })
        .collect()
}

#[test]
fn a_long_chain_of_cancelling_ops_is_the_identity() {
    let mut body = vec!["  v0 = f32[8,16] parameter(0)".to_string()];
    let n = 700;
    for i in 1..=n {
        let (shape, op) = match i % 4 {
            1 => ("f32[16,8]", "transpose(v{}), dimensions={1,0}"),
            2 => ("f32[128]", "reshape(v{})"),
            3 => ("f32[16,8]", "reshape(v{})"),
            _ => ("f32[8,16]", "transpose(v{}), dimensions={1,0}"),
        };
        let root = if i == n { "ROOT " } else { "" };
        body.push(format!(
            "  {root}v{i} = {shape} {}",
            op.replace("{}", &(i - 1).to_string())
        ));
    }
    let text = format!("ENTRY e {{\n{}\n}}\n", body.join("\n"));
    let maps = maps_of(
        &text,
        Query {
            to_parameters: true,
            ..Query::default()
        },
    );
    assert_eq!(
        maps,
        vec![vec![
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]".to_string()
        ]]
    );
}

#[test]
fn diamonds_do_not_multiply_paths() {
    // 40 levels of x + x: 2^40 paths, one map.
    let mut body = vec!["  v0 = f32[4] parameter(0)".to_string()];
    for i in 1..=40 {
        body.push(format!("  v{i} = f32[4] add(v{}, v{})", i - 1, i - 1));
    }
    let text = format!(
        "ENTRY e {{\n{}\n  ROOT r = f32[4] negate(v40)\n}}\n",
        body.join("\n")
    );
    let maps = maps_of(
        &text,
        Query {
            to_parameters: true,
            ..Query::default()
        },
    );
    assert_eq!(
        maps,
        vec![vec!["(d0) -> (d0), domain: d0 in [0, 3]".to_string()]]
    );
}

#[test]
fn nested_fusions_and_tuple_roots() {
    let text = "inner {\n a = f32[6] parameter(0)\n ROOT r = f32[2,3] reshape(a)\n}\n\
                outer {\n x = f32[6] parameter(0)\n y = f32[3,2] parameter(1)\n f = f32[2,3] fusion(x), kind=kLoop, calls=inner\n t = f32[2,3] transpose(y), dimensions={1,0}\n s = f32[2,3] add(f, t)\n ROOT tu = (f32[2,3], f32[3,2]) tuple(s, y)\n}\n\
                ENTRY e {\n p0 = f32[6] parameter(0)\n p1 = f32[3,2] parameter(1)\n ROOT o = (f32[2,3], f32[3,2]) fusion(p0, p1), kind=kLoop, calls=outer\n}";
    let out0 = maps_of(text, Query::default());
    assert_eq!(
        out0,
        vec![
            vec!["(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]".to_string()],
            vec!["(d0, d1) -> (d1, d0), domain: d0 in [0, 1], d1 in [0, 2]".to_string()],
        ]
    );
    let out1 = maps_of(
        text,
        Query {
            output: 1,
            ..Query::default()
        },
    );
    assert_eq!(
        out1,
        vec![
            vec![],
            vec!["(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 1]".to_string()]
        ]
    );
    // Input-to-output through the fusion.
    let i2o = maps_of(
        text,
        Query {
            input_to_output: true,
            ..Query::default()
        },
    );
    assert_eq!(
        i2o,
        vec![
            vec!["(d0) -> (d0 / 3, d0 mod 3), domain: d0 in [0, 5]".to_string()],
            vec!["(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]".to_string()],
        ]
    );
}

#[test]
fn unsupported_ops_poison_only_what_they_feed() {
    let text = "ENTRY e {\n p0 = f32[4,4] parameter(0)\n p1 = f32[4,3] parameter(1)\n p2 = f32[4,3] parameter(2)\n\
                t = f32[4,3] triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE, unit_diagonal=true\n\
                ROOT a = f32[4,3] add(t, p2)\n}";
    let maps = maps_of(
        text,
        Query {
            to_parameters: true,
            ..Query::default()
        },
    );
    assert!(maps[0][0].starts_with("unsupported"), "{maps:?}");
    assert!(maps[1][0].starts_with("unsupported"), "{maps:?}");
    assert_eq!(
        maps[2],
        vec!["(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 2]".to_string()]
    );
}

#[test]
fn a_computation_calling_itself_is_an_error_not_a_hang() {
    let text = "c {\n a = f32[2] parameter(0)\n ROOT r = f32[2] call(a), to_apply=c\n}\nENTRY e {\n p0 = f32[2] parameter(0)\n ROOT r = f32[2] call(p0), to_apply=c\n}";
    let maps = maps_of(text, Query::default());
    assert!(maps[0][0].starts_with("unsupported"), "{maps:?}");
}
