//! Shapes and layouts: `f32[10,20]{1,0}`, `(f32[], s32[4])`.

use super::{PResult, Parser};
use crate::shape::{ArrayShape, LayoutAnnotation, Shape, Tile, TileDim};

/// A layout as written: `{1,0:T(8,128)(2,1)S(1)}`.
pub(super) struct Layout {
    /// The `minor_to_major` list (`None` when empty on a non-scalar).
    pub order: Option<Vec<usize>>,
    /// The tiles after `T`.
    pub tiles: Vec<Tile>,
    /// The other annotations after the `:`.
    pub annotations: Vec<LayoutAnnotation>,
}

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
        let (layout, tiles, annotations) = match layout {
            Some(l) => (l.order, l.tiles, l.annotations),
            None => (None, Vec::new(), Vec::new()),
        };
        Ok(Shape::Array(ArrayShape {
            element_type,
            dims,
            layout,
            tiles,
            annotations,
        }))
    }

    pub(super) fn layout(&mut self, rank: usize) -> PResult<Option<Layout>> {
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
        let (mut tiles, mut annotations) = (Vec::new(), Vec::new());
        loop {
            self.skip_trivia();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b':') => {
                    self.pos += 1;
                    self.layout_annotations(&mut tiles, &mut annotations)?;
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
        Ok(Some(Layout {
            order: if order.is_empty() && rank > 0 {
                None
            } else {
                Some(order)
            },
            tiles,
            annotations,
        }))
    }

    /// The annotations after a layout's `:`, up to and including its `}`,
    /// as XLA's layout printer writes them: `D(...)`, `T(...)(...)`,
    /// `L(n)`, `#(type)`, `*(type)`, `E(n)`, `S(n)`, `SC(...)...`,
    /// `P(shape)`, `M(n)`.
    fn layout_annotations(
        &mut self,
        tiles: &mut Vec<Tile>,
        annotations: &mut Vec<LayoutAnnotation>,
    ) -> PResult<()> {
        loop {
            self.skip_trivia();
            let start = self.pos;
            if self.eat(b'}') {
                return Ok(());
            }
            if self.eat_str("SC") {
                // Split configurations: one `(dim:index,...)` group per split.
                while self.peek() == Some(b'(') {
                    self.balanced(b'(', b')')?;
                }
                annotations.push(LayoutAnnotation::Other(
                    self.src[start..self.pos].to_string(),
                ));
                continue;
            }
            let Some(letter) = self.peek() else {
                return Err(self.error_here("the layout is never closed; expected `}`"));
            };
            if letter == b'T' && self.bytes.get(self.pos + 1) == Some(&b'(') {
                self.pos += 1;
                if !tiles.is_empty() {
                    return Err(self.error(start..self.pos, "the layout has two tile lists `T`"));
                }
                while self.peek() == Some(b'(') {
                    tiles.push(self.tile()?);
                }
                continue;
            }
            let counted = match letter {
                b'E' => Some(LayoutAnnotation::ElementSizeInBits as fn(i64) -> LayoutAnnotation),
                b'S' => Some(LayoutAnnotation::MemorySpace as fn(i64) -> LayoutAnnotation),
                b'L' => Some(LayoutAnnotation::TailPadding as fn(i64) -> LayoutAnnotation),
                b'M' => Some(LayoutAnnotation::MetadataPrefixBytes as fn(i64) -> LayoutAnnotation),
                _ => None,
            };
            if let (Some(make), Some(b'(')) = (counted, self.bytes.get(self.pos + 1).copied()) {
                self.pos += 2;
                self.skip_trivia();
                let (n, span) = self.int("a number in the layout annotation")?;
                if n < 0 {
                    return Err(
                        self.error(span, "a layout annotation's number must not be negative")
                    );
                }
                self.expect(b')', "`)` after the layout annotation's number")?;
                annotations.push(make(n));
                continue;
            }
            // XLA names annotations with capitals (or `#`, `*`).
            let named = letter.is_ascii_uppercase() || letter == b'#' || letter == b'*';
            if named {
                self.pos += 1;
                while matches!(self.peek(), Some(c) if c.is_ascii_uppercase()) {
                    self.pos += 1;
                }
                if self.peek() == Some(b'(') {
                    self.balanced(b'(', b')')?;
                    annotations.push(LayoutAnnotation::Other(
                        self.src[start..self.pos].to_string(),
                    ));
                    continue;
                }
                self.pos = start;
            }
            return Err(self.error_here(format!(
                "expected a layout annotation such as `T(8,128)` or `S(1)`, or `}}`{}",
                self.found()
            )));
        }
    }

    /// One tile `(8,128)`: positive sizes or `*`; the cursor is at its `(`.
    fn tile(&mut self) -> PResult<Tile> {
        let open = self.pos;
        self.pos += 1;
        let mut dims = Vec::new();
        loop {
            self.skip_trivia();
            if self.eat(b'*') {
                dims.push(TileDim::Combine);
            } else {
                let (n, span) = self.int("a tile size or `*`")?;
                if n <= 0 {
                    return Err(self.error(span, format!("a tile size must be positive, not {n}")));
                }
                dims.push(TileDim::Size(n));
            }
            self.skip_trivia();
            if self.eat(b')') {
                break;
            }
            self.expect(b',', "`,` or `)` in the tile")?;
        }
        if dims.is_empty() {
            return Err(self.error(open..self.pos, "a tile needs at least one size"));
        }
        Ok(Tile { dims })
    }
}
