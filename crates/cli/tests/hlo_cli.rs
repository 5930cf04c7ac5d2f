//! `rangefinder hlo` and `rangefinder map` on the inputs of the hardening
//! issue: JSON that keeps runtime variables and tuple elements, qualified
//! instruction names, positioned errors for invalid modules.

use std::io::Write;
use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `rangefinder hlo` on `text` written to a temporary file.
fn hlo(text: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let dir = std::env::temp_dir().join(format!("rangefinder-hlo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("m{:x}.hlo", text.len() * 31 + args.len()));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let mut all = vec!["hlo", path.to_str().unwrap()];
    all.extend_from_slice(args);
    let r = run(&all);
    let _ = std::fs::remove_file(&path);
    r
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

const FUSED_DYNAMIC_SLICE: &str = "HloModule m\nfused {\n  i = s32[] parameter(0)\n  x = f32[10] parameter(1)\n  ROOT ds = f32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}\n}\nENTRY e {\n  x = f32[10] parameter(0)\n  i = s32[] parameter(1)\n  ROOT f = f32[3] fusion(i, x), kind=kLoop, calls=fused\n}\n";

#[test]
fn json_keeps_runtime_variables_with_their_source() {
    let (code, out, err) = hlo(FUSED_DYNAMIC_SLICE, &["--to-parameters", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v = json(&out);
    let rt = &v["operands"][0]["details"][0]["runtime_variables"][0];
    assert_eq!(rt["name"], "rt0");
    assert_eq!(rt["source"], "parameter(1)");
    assert_eq!(rt["operand"], 1);
    assert_eq!(rt["operand_name"], "i");
    assert_eq!(rt["map"], "(d0) -> (), domain: d0 in [0, 2]");
}

#[test]
fn runtime_maps_name_their_symbols_apart() {
    // A reduce over a gather: each runtime variable's own map ranges over
    // the reduced positions; its symbols print as `rtK.sN`, never as the
    // main map's `s0`, `s1`.
    let text = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[5,6] parameter(0)\n  i = s32[3,2] parameter(1)\n  g = f32[3,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}\n  z = f32[] constant(0)\n  ROOT r = f32[3] reduce(g, z), dimensions={1,2}, to_apply=add\n}\n";
    let (code, out, err) = hlo(text, &["--to-parameters"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("rt0: parameter(1); (d0)[rt0.s0, rt0.s1] -> (d0, 0), domain: d0 in [0, 2], rt0.s0 in [0, 1], rt0.s1 in [0, 2]"),
        "{out}"
    );
    let (_, out, _) = hlo(text, &["--to-parameters", "--json"]);
    let v = json(&out);
    assert_eq!(
        v["operands"][0]["details"][0]["runtime_variables"][1]["map"],
        "(d0)[rt1.s0, rt1.s1] -> (d0, 1), domain: d0 in [0, 2], rt1.s0 in [0, 1], rt1.s1 in [0, 2]"
    );
}

#[test]
fn json_says_which_tuple_element_each_map_is_for() {
    let text = "HloModule m\nENTRY e {\n  p = (f32[4], f32[4]) parameter(0)\n  g1 = f32[4] get-tuple-element(p), index=1\n  ROOT r = f32[4] reverse(g1), dimensions={0}\n}\n";
    let (code, out, err) = hlo(text, &["--to-parameters", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v = json(&out);
    let p = &v["operands"][0];
    assert_eq!(p["unsupported"], serde_json::Value::Null);
    assert_eq!(p["maps"][0], "(d0) -> (-d0 + 3), domain: d0 in [0, 3]");
    assert_eq!(p["details"][0]["tuple_element"], 1);
}

#[test]
fn both_directions_of_a_call_with_a_tuple_parameter_succeed() {
    let text = "HloModule m\ncallee {\n  q = (f32[4], f32[6]) parameter(0)\n  g = f32[6] get-tuple-element(q), index=1\n  ROOT s = f32[3] slice(g), slice={[1:4]}\n}\nENTRY e {\n  x = f32[4] parameter(0)\n  y = f32[6] parameter(1)\n  t = (f32[4], f32[6]) tuple(x, y)\n  ROOT c = f32[3] call(t), to_apply=callee\n}\n";
    for extra in [&[][..], &["--input-to-output"][..]] {
        let mut args = vec!["--instruction", "c", "--to-parameters"];
        args.extend_from_slice(extra);
        let (code, out, err) = hlo(text, &args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(out.contains("tuple element 1:"), "{args:?}: {out}");
    }
}

#[test]
fn qualified_instruction_names_and_ambiguity_warnings() {
    let text = "HloModule m\nf {\n  a = f32[4] parameter(0)\n  ROOT n = f32[4] reverse(a), dimensions={0}\n}\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT n = f32[4] negate(a)\n}\n";
    let (code, out, err) = hlo(text, &["--instruction", "f/n"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("-d0 + 3"), "{out}");
    assert!(err.is_empty(), "{err}");
    let (code, out, err) = hlo(text, &["--instruction", "n"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("(d0) -> (d0)"), "{out}");
    assert!(err.contains("warning:") && err.contains("`f/n`"), "{err}");
    let (code, _, err) = hlo(text, &["--instruction", "g/n"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no computation `g`"), "{err}");
}

#[test]
fn invalid_modules_get_positioned_errors() {
    let (code, _, err) = hlo(
        "HloModule m\nENTRY e {\n  ROOT b = f32[4] bitcast()\n}\n",
        &[],
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("3:8") && err.contains("exactly 1 operand"),
        "{err}"
    );
    // The position is in the source line's header, not repeated in the message.
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Error: ") && !first.contains("3:8"),
        "{err}"
    );
    let (code, _, err) = hlo(
        "HloModule m\nENTRY e {\n  ROOT c = s32[] constant(99999999999)\n}\n",
        &[],
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("s32"), "{err}");
}

#[test]
fn compiled_modules_with_stack_frames_parse_and_errors_keep_their_line() {
    let compiled = "HloModule jit_f, is_scheduled=true\n\nFileNames\n1 \"/tmp/f.py\"\n\nFunctionNames\n1 \"f\"\n\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=4 end_column=9}\n\nStackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n\nENTRY %main.1 (x.1: s32[8]) -> s32[8] {\n  %x.1 = s32[8]{0} parameter(0), metadata={op_name=\"x\"}\n  ROOT %clz.0 = s32[8]{0} count-leading-zeros(%x.1), metadata={op_name=\"jit(f)/clz\" stack_frame_id=1}\n}\n";
    let (code, out, err) = hlo(compiled, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "operand id = 0\n(d0) -> (d0), domain: d0 in [0, 7]\n");
    let broken = compiled.replace("count-leading-zeros(%x.1)", "count-leading-zeros(%y)");
    let (code, _, err) = hlo(&broken, &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("18:47"), "the error stays on line 18: {err}");
}

#[test]
fn map_json_and_long_sums() {
    let (code, out, err) = run(&[
        "map",
        "(d0) -> (d0 floordiv 8), domain: d0 in [0, 31]",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v = json(&out);
    assert_eq!(v["simplified"], "(d0) -> (d0 / 8), domain: d0 in [0, 31]");
    let long = format!(
        "(d0) -> ({}), domain: d0 in [0, 9]",
        vec!["d0"; 20_000].join(" + ")
    );
    let (code, out, err) = run(&["map", &long]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim(), "(d0) -> (d0 * 20000), domain: d0 in [0, 9]");
    let deep = format!(
        "(d0) -> ({}d0{}), domain: d0 in [0, 9]",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    let (code, _, err) = run(&["map", &deep]);
    assert_eq!(code, Some(2));
    assert!(err.contains("nests more than 400"), "{err}");
}

#[test]
fn a_reader_closing_the_pipe_early_is_not_a_crash() {
    // About 200 KB of maps, far beyond a pipe's buffer.
    let n = 3000;
    let mut text = String::from("HloModule m\nENTRY e {\n");
    for i in 0..n {
        text.push_str(&format!("  p{i} = f32[2] parameter({i})\n"));
    }
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    text.push_str(&format!(
        "  ROOT c = f32[{}] concatenate({}), dimensions={{0}}\n}}\n",
        2 * n,
        names.join(", ")
    ));
    let path = std::env::temp_dir().join(format!("rangefinder-pipe-{}.hlo", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(["hlo", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&path);
    assert_ne!(
        out.status.code(),
        Some(101),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

/// An operand without maps says why on standard error, pointing at the
/// instruction that has none (inside the fused computation); the maps on
/// standard output stay XLA's `unknown indexing`.
#[test]
fn unknown_indexing_points_at_the_instruction_without_maps() {
    let text = "HloModule m\nf {\n  p = f32[2,2] parameter(0)\n  ROOT s = f32[2,2] cholesky(p), lower=true\n}\nENTRY e {\n  x = f32[2,2] parameter(0)\n  ROOT fu = f32[2,2] fusion(x), kind=kLoop, calls=f\n}\n";
    let (code, out, err) = hlo(text, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "operand id = 0 unknown indexing\n");
    assert!(err.contains("unsupported op `cholesky`"), "{err}");
    assert!(
        err.contains(":4:8"),
        "the warning points at `s` on line 4: {err}"
    );
    let (code, _, err) = hlo(text, &["--json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(":4:8"), "{err}");
}

/// Ops XLA gives no map have one here, flagged: a sort's map is marked
/// conservative (text `conservative: ...`, JSON `exact: false`), an FFT's
/// is exact, a custom call to an unknown target names it.
#[test]
fn maps_beyond_xla_say_whether_they_are_exact() {
    let sort = "HloModule m\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT lt = pred[] compare(a, b), direction=LT\n}\nENTRY e {\n  x = f32[4,8] parameter(0)\n  ROOT s = f32[4,8] sort(x), dimensions={1}, to_apply=cmp\n}\n";
    let (code, out, err) = hlo(sort, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "operand id = 0\n(d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 3], d1 in [0, 7], s0 in [0, 7]\nconservative: sort: where an element lands in the sorted dimension depends on the values compared; every position of that dimension\n");
    let (code, out, err) = hlo(sort, &["--json", "--input-to-output"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let map = &v["operands"][0]["details"][0];
    assert_eq!(map["exact"], false, "{out}");
    assert!(
        map["conservative"].as_str().unwrap().starts_with("sort: "),
        "{out}"
    );

    let fft = "HloModule m\nENTRY e {\n  x = c64[3,4] parameter(0)\n  ROOT f = c64[3,4] fft(x), fft_type=FFT, fft_length={4}\n}\n";
    let (code, out, err) = hlo(fft, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "operand id = 0\n(d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 2], d1 in [0, 3], s0 in [0, 3]\n");
    let (_, out, _) = hlo(fft, &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["operands"][0]["details"][0]["exact"], true, "{out}");
    assert!(
        v["operands"][0]["details"][0]["conservative"].is_null(),
        "{out}"
    );

    let call = "HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT c = f32[2] custom-call(x), custom_call_target=\"my_kernel\"\n}\n";
    let (code, out, err) = hlo(call, &["--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let map = &v["operands"][0]["details"][0];
    assert_eq!(map["exact"], false, "{out}");
    assert!(
        map["conservative"]
            .as_str()
            .unwrap()
            .contains("`my_kernel`"),
        "{out}"
    );
}

/// A query that fails inside the module (here: `--to-parameters` from a
/// ROOT whose output is itself a tuple) is reported at the instruction.
#[test]
fn analysis_errors_of_a_query_point_into_the_module() {
    let text = "HloModule m\nENTRY e {\n  x = f32[8] parameter(0)\n  t = (f32[8]) tuple(x)\n  ROOT r = ((f32[8])) tuple(t)\n}\n";
    let (code, _, err) = hlo(text, &["--to-parameters"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`r` has no array output 0"), "{err}");
    assert!(
        err.contains(":5:8"),
        "the error points at `r` on line 5: {err}"
    );
}

fn example(name: &str) -> String {
    format!("{}/../../examples/hlo/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn physical_maps_of_plain_layouts_follow_minor_to_major() {
    // A column-major operand: physical position (d0, d1) of the row-major
    // output is logical (d0, d1), stored in the operand at (d1, d0).
    let text = "ENTRY e {\n p = f32[3,5]{0,1} parameter(0)\n ROOT n = f32[3,5]{1,0} negate(p)\n}\n";
    let (code, out, err) = hlo(text, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "operand id = 0\n(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 4]\n"
    );
    let (code, out, err) = hlo(text, &["--physical"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "operand id = 0\n(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 4]\n"
    );
}

#[test]
fn physical_maps_of_a_tiled_transpose_are_the_identity_on_positions() {
    // p and the copy store the same tiled bytes: the transpose and the
    // layout change cancel, so physical positions map to themselves, and
    // the constraints leave out the tile padding (rows 100..103, columns
    // 300..383 of the last tiles).
    let path = example("tiled_transpose.hlo");
    let (code, out, err) = run(&["hlo", &path, "--to-parameters", "--physical"]);
    assert_eq!(code, Some(0), "{err}");
    let map = "(d0, d1, d2, d3) -> (d0, d1, d2, d3), domain: d0 in [0, 12], d1 in [0, 2], \
               d2 in [0, 7], d3 in [0, 127], d0 * 8 + d2 in [0, 99], d1 * 128 + d3 in [0, 299]";
    assert_eq!(out, format!("operand id = 0\n{map}\n"));
    let (code, out, err) = run(&["hlo", &path, "--to-parameters", "--physical", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v = json(&out);
    assert_eq!(v["operands"][0]["maps"][0], map);
    assert_eq!(v["operands"][0]["details"][0]["exact"], true);
    // Without --physical the same module maps logical indices: a transpose.
    let (_, out, _) = run(&["hlo", &path, "--to-parameters"]);
    assert_eq!(
        out,
        "operand id = 0\n(d0, d1) -> (d1, d0), domain: d0 in [0, 299], d1 in [0, 99]\n"
    );
}

#[test]
fn physical_maps_of_packed_bf16_tiles() {
    // bf16 (8,128)(2,1): the second tile pairs rows 2k and 2k+1 of a column.
    let path = example("tpu_tiled_dense.hlo");
    let (code, out, err) = run(&["hlo", &path, "--to-parameters", "--physical", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v = json(&out);
    assert_eq!(
        v["operands"][0]["maps"][0],
        "(d0, d1, d2, d3)[s0] -> (d0, s0 / 128, d2 / 2, s0 mod 128, d2 mod 2, 0), \
         domain: d0 in [0, 31], d1 in [0, 7], d2 in [0, 7], d3 in [0, 127], s0 in [0, 511]"
    );
    assert_eq!(
        v["operands"][2]["maps"][0],
        "(d0, d1, d2, d3) -> (0, d1 * 128 + d3), \
         domain: d0 in [0, 31], d1 in [0, 7], d2 in [0, 7], d3 in [0, 127]"
    );
}

#[test]
fn layouts_without_known_positions_are_unknown_indexing_with_physical() {
    let text =
        "ENTRY e {\n p = f32[8,4]{1,0:T(2,*)} parameter(0)\n ROOT n = f32[8,4] negate(p)\n}\n";
    let (code, out, err) = hlo(text, &["--physical", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("most minor tile dimension"), "{err}");
    let v = json(&out);
    assert!(v["operands"][0]["unsupported"]
        .as_str()
        .unwrap()
        .contains("most minor tile dimension"));
}

#[test]
fn physical_maps_of_a_tuple_element_keep_the_element() {
    let text = "ENTRY e {\n p = (f32[4,6]{0,1}, f32[3]{0:T(2)}) parameter(0)\n ROOT g = f32[4,6]{1,0:T(2,4)} get-tuple-element(p), index=0\n}\n";
    for flags in [
        &["--physical", "--json"][..],
        &["--physical", "--to-parameters", "--json"][..],
    ] {
        let (code, out, err) = hlo(text, flags);
        assert_eq!(code, Some(0), "{err}");
        let v = json(&out);
        let detail = &v["operands"][0]["details"][0];
        assert_eq!(detail["tuple_element"], 0, "{flags:?}");
        // Output position (d0, d1, d2, d3) is logical (d0 * 2 + d2, d1 * 4 + d3),
        // stored column-major in element 0 of the tuple.
        assert_eq!(
            detail["map"],
            "(d0, d1, d2, d3) -> (d1 * 4 + d3, d0 * 2 + d2), domain: d0 in [0, 1], d1 in [0, 1], \
             d2 in [0, 1], d3 in [0, 3], d1 * 4 + d3 in [0, 5]"
        );
    }
}
