//! Range-spec lists (`i=0:n - 1 j=0:4`) as the command line and batch
//! files write them: the one-pass reading of constant specs must agree with
//! the general reader, spec by spec, on results and on errors.

use arith::Scope;
use proptest::prelude::*;

/// Each spec as its variable's name and its printed range, or the error's
/// message and span.
type Read = Result<Vec<(String, String)>, (String, Option<std::ops::Range<usize>>)>;

/// What the general reader makes of `text`: each piece of
/// `split_range_specs` through `parse_range_spec`.
fn general(text: &str) -> Read {
    let mut scope = Scope::new();
    arith::split_range_specs(text)
        .into_iter()
        .map(|(at, spec)| {
            arith::parse_range_spec(spec, &mut scope)
                .map(|(v, r)| (v.name().to_string(), format!("{} {}", r.min, r.extent)))
                .map_err(|e| {
                    let e = e.shifted(at);
                    (e.message, e.span)
                })
        })
        .collect()
}

fn listed(text: &str) -> Read {
    let mut scope = Scope::new();
    arith::parse_range_specs(text, &mut scope)
        .map(|specs| {
            specs
                .into_iter()
                .map(|(v, r)| (v.name().to_string(), format!("{} {}", r.min, r.extent)))
                .collect()
        })
        .map_err(|e| (e.message, e.span))
}

#[test]
fn constant_specs_read_like_any_other() {
    for text in [
        "x=-2147483648:2147483648 y=0:4",
        " x = 0 : 4\t y=1:2 ",
        "x=0:4y=0:2",
        "x=0:4 + 1 y=0:2",
        "x==0:4",
        "x=-0:0",
        "x=0_0:4",
        "x=+1:4",
        "x=1234567890123456789:9223372036854775807",
        "x=-9223372036854775808:9223372036854775807",
        "x=0:4 5",
        "5 x=0:4",
        "x=0:n n=1:8",
        "x=0:4 x=1:3",
        "é=0:4",
        "x=0:4\u{a0}y=0:2",
    ] {
        assert_eq!(listed(text), general(text), "{text:?}");
    }
}

proptest! {
    #[test]
    fn any_spec_list_reads_like_the_general_reader(
        pieces in proptest::collection::vec(
            prop_oneof![
                Just("x"), Just("y1"), Just("_n"), Just("="), Just("=="), Just(":"),
                Just("-"), Just("+"), Just(" "), Just("  "), Just("\t"), Just("0"),
                Just("7"), Just("2147483648"), Just("9223372036854775807"),
                Just("123456789012345678"), Just("1_0"), Just("("), Just(")"), Just("*"),
                Just("x=0:4"), Just("y = -2 : 7"), Just("n=1:2147483648"), Just(" z=-5:-1 "),
                Just("i=0:n"), Just("x1=9223372036854775807:-9223372036854775807"),
            ],
            0..14,
        )
    ) {
        let text: String = pieces.concat();
        prop_assert_eq!(listed(&text), general(&text), "{:?}", text);
    }
}
