//! Shapes and layouts: `f32[10,20]{1,0}`, `(f32[], s32[4])`.

use super::{PResult, Parser};
use crate::shape::{ArrayShape, Shape};

impl Parser<'_> {
    pub(super) fn shape(&mut self) -> PResult<Shape> {
        if self.peek() == Some(b'(') {
            if self.shape_depth >= super::MAX_SHAPE_NESTING {
                return Err(self
                    .error_here(format!(
                        "tuple shapes nest deeper than {} levels",
                        super::MAX_SHAPE_NESTING
                    ))
                    .with_kind(crate::error::ErrorKind::TooDeep));
            }
            self.shape_depth += 1;
            let r = self.tuple_shape();
            self.shape_depth -= 1;
            return r;
        }
        self.array_shape()
    }

    /// A tuple shape; the cursor is at its `(`.
    fn tuple_shape(&mut self) -> PResult<Shape> {
        self.pos += 1;
        let mut elems = Vec::new();
        self.skip_trivia();
        if self.eat(b')') {
            return Ok(Shape::Tuple(elems));
        }
        loop {
            self.skip_trivia();
            elems.push(self.shape()?);
            self.skip_trivia();
            if self.eat(b')') {
                return Ok(Shape::Tuple(elems));
            }
            self.expect(b',', "`,` or `)` in the tuple shape")?;
        }
    }

    fn array_shape(&mut self) -> PResult<Shape> {
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(
                self.error_here("expected a shape such as `f32[10,20]` or `(f32[], s32[])`")
            );
        }
        let element_type = self.src[start..self.pos].to_string();
        if self.peek() != Some(b'[') {
            return Err(self.error_here(format!(
                "expected `[` and the dimensions after element type `{element_type}`"
            )));
        }
        self.pos += 1;
        let mut dims = Vec::new();
        self.skip_trivia();
        if !self.eat(b']') {
            loop {
                self.skip_trivia();
                if self.eat_str("<=") {
                    self.skip_trivia();
                }
                let (d, span) = self.int("a dimension size")?;
                if d < 0 {
                    return Err(self.error(span, "a dimension size must not be negative"));
                }
                dims.push(d);
                self.skip_trivia();
                if self.eat(b']') {
                    break;
                }
                self.expect(b',', "`,` or `]` in the dimension list")?;
            }
        }
        let layout = self.layout(dims.len())?;
        Ok(Shape::Array(ArrayShape {
            element_type,
            dims,
            layout,
        }))
    }

    pub(super) fn layout(&mut self, rank: usize) -> PResult<Option<Vec<usize>>> {
        let save = self.pos;
        self.skip_trivia();
        if self.peek() != Some(b'{') {
            self.pos = save;
            return Ok(None);
        }
        // A `{` after a shape is a layout only if a number, `:` or `}` follows;
        // otherwise it opens a computation body.
        let mut look = self.pos + 1;
        while look < self.bytes.len() && self.bytes[look].is_ascii_whitespace() {
            look += 1;
        }
        match self.bytes.get(look) {
            Some(c) if c.is_ascii_digit() || *c == b':' || *c == b'}' => {}
            _ => {
                self.pos = save;
                return Ok(None);
            }
        }
        let open = self.pos;
        self.pos += 1;
        let mut order = Vec::new();
        loop {
            self.skip_trivia();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b':') => {
                    // Tiling and memory-space annotations: not needed for indexing.
                    self.pos = open;
                    self.balanced(b'{', b'}')?;
                    break;
                }
                _ => {}
            }
            let (d, span) = self.int("a layout dimension")?;
            if d < 0 || d as usize >= rank {
                return Err(self.error(
                    span,
                    format!("layout dimension {d} is not a dimension of a rank-{rank} shape"),
                ));
            }
            order.push(d as usize);
            self.skip_trivia();
            if !self.eat(b',') && self.peek() != Some(b'}') && self.peek() != Some(b':') {
                return Err(self.error_here("expected `,` or `}` in the layout"));
            }
        }
        if !order.is_empty() {
            let mut seen = vec![false; rank];
            for &d in &order {
                if seen[d] {
                    return Err(self.error(open..self.pos, "the layout names a dimension twice"));
                }
                seen[d] = true;
            }
            if order.len() != rank {
                return Err(self.error(
                    open..self.pos,
                    format!(
                        "the layout lists {} dimensions for a rank-{rank} shape",
                        order.len()
                    ),
                ));
            }
        }
        Ok(if order.is_empty() && rank > 0 {
            None
        } else {
            Some(order)
        })
    }
}
