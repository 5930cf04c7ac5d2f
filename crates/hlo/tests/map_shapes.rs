//! `map_shapes` names the shapes each entry's maps go between: on every
//! example module, for every instruction of the entry computation and for
//! the entry as one fusion, in both directions, each map has one dimension
//! per axis of `from` and one result per axis of `to` (of the tuple element
//! the map says it indexes), and every dimension range lies inside `from`.

use hlo::{analyze, map_shapes, OperandIndexing, Query, Shape};
use std::path::PathBuf;

fn example_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/hlo");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    files.sort();
    files
}

fn check(module: &hlo::Module, query: &Query, what: &str) -> usize {
    let Ok(result) = analyze(module, query) else {
        assert!(map_shapes(module, query).is_err(), "{what}");
        return 0;
    };
    let shapes = map_shapes(module, query).unwrap();
    assert_eq!(shapes.len(), result.operands.len(), "{what}");
    let mut checked = 0;
    for (entry, s) in result.operands.iter().zip(&shapes) {
        let OperandIndexing::Maps(maps) = &entry.indexing else {
            continue;
        };
        let Shape::Array(from) = &s.from else {
            continue;
        };
        for m in maps {
            if m.map.is_undefined() || m.map.is_known_empty() {
                continue;
            }
            let to = match m.element {
                Some(k) => s.to.output(k).and_then(Shape::as_array),
                None => s.to.as_array(),
            };
            let Some(to) = to else { continue };
            assert_eq!(
                m.map.num_dims(),
                from.rank(),
                "{what}: {}\n{}",
                entry.name,
                m.map
            );
            assert_eq!(
                m.map.num_results(),
                to.rank(),
                "{what}: {}\n{}",
                entry.name,
                m.map
            );
            for (v, &n) in m.map.dims().iter().zip(&from.dims) {
                let b = v.bounds();
                assert!(
                    0 <= b.lower && b.upper < n,
                    "{what}: {}\n{}",
                    entry.name,
                    m.map
                );
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_map_indexes_the_shapes_map_shapes_names() {
    let mut checked = 0;
    for f in example_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let module = hlo::parse_module(&text).unwrap();
        let entry = module.entry_computation();
        for inst in &entry.instructions {
            for input_to_output in [false, true] {
                let query = Query {
                    instruction: Some(format!("{}/{}", entry.name, inst.name)),
                    input_to_output,
                    ..Query::default()
                };
                checked += check(&module, &query, &format!("{}: {}", f.display(), inst.name));
            }
        }
        for input_to_output in [false, true] {
            let query = Query {
                to_parameters: true,
                input_to_output,
                ..Query::default()
            };
            checked += check(&module, &query, &format!("{}: to parameters", f.display()));
        }
    }
    assert!(checked > 500, "only {checked} maps checked");
}

#[test]
fn a_missing_output_is_an_error() {
    let m =
        hlo::parse_module("ENTRY e {\n p0 = f32[4] parameter(0)\n ROOT n = f32[4] negate(p0)\n}")
            .unwrap();
    let query = Query {
        output: 1,
        ..Query::default()
    };
    assert!(map_shapes(&m, &query).is_err());
}
