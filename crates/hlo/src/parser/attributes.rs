//! Attribute values: integer lists, `slice=`, `padding=`, `window=`,
//! `dim_labels=`, called computations, and raw text for the rest.

use super::{PResult, Parser};
use crate::attrs::{
    attr_kind, AttrKind, AttrValue, Attribute, ConvDimLabels, PadDim, SliceDim, WindowDim,
};
use std::ops::Range;

impl Parser<'_> {
    pub(super) fn attribute(&mut self) -> PResult<Attribute> {
        let (name, _) = self.name("an attribute name")?;
        self.expect(b'=', &format!("`=` after attribute name `{name}`"))?;
        self.skip_trivia();
        let start = self.pos;
        let value = match attr_kind(&name) {
            AttrKind::Int => AttrValue::Int(self.int(&format!("an integer for `{name}`"))?.0),
            AttrKind::Ints => AttrValue::Ints(self.int_list(&name)?),
            AttrKind::IntLists => {
                if self.peek() == Some(b'{') {
                    self.pos += 1;
                    let mut lists = Vec::new();
                    self.skip_trivia();
                    if !self.eat(b'}') {
                        loop {
                            self.skip_trivia();
                            lists.push(self.int_list(&name)?);
                            self.skip_trivia();
                            if self.eat(b'}') {
                                break;
                            }
                            self.expect(b',', "`,` or `}` in the list of lists")?;
                        }
                    }
                    AttrValue::IntLists(lists)
                } else {
                    AttrValue::Raw(self.raw_value()?)
                }
            }
            AttrKind::Slice => AttrValue::Slice(self.slice_attr()?),
            AttrKind::Padding => AttrValue::Padding(self.padding_attr()?),
            AttrKind::Window => AttrValue::Window(self.window_attr()?),
            AttrKind::DimLabels => AttrValue::DimLabels(self.dim_labels_attr()?),
            AttrKind::Computations => {
                let mut names = Vec::new();
                if self.eat(b'{') {
                    loop {
                        self.skip_trivia();
                        names.push(self.name("a computation name")?.0);
                        self.skip_trivia();
                        if self.eat(b'}') {
                            break;
                        }
                        self.expect(b',', "`,` or `}` in the computation list")?;
                    }
                } else {
                    names.push(self.name(&format!("a computation name for `{name}`"))?.0);
                }
                AttrValue::Computations(names)
            }
            AttrKind::Raw => AttrValue::Raw(self.raw_value()?),
        };
        Ok(Attribute {
            name,
            value,
            span: start..self.pos,
        })
    }

    pub(super) fn int_list(&mut self, name: &str) -> PResult<Vec<i64>> {
        self.expect(b'{', &format!("`{{` to open the list of `{name}`"))?;
        let mut v = Vec::new();
        self.skip_trivia();
        if self.eat(b'}') {
            return Ok(v);
        }
        loop {
            self.skip_trivia();
            v.push(self.int(&format!("an integer in `{name}`"))?.0);
            self.skip_trivia();
            if self.eat(b'}') {
                return Ok(v);
            }
            self.expect(b',', &format!("`,` or `}}` in the list of `{name}`"))?;
        }
    }

    pub(super) fn slice_attr(&mut self) -> PResult<Vec<SliceDim>> {
        self.expect(b'{', "`{` to open `slice=`")?;
        let mut dims = Vec::new();
        self.skip_trivia();
        if self.eat(b'}') {
            return Ok(dims);
        }
        loop {
            self.skip_trivia();
            self.expect(b'[', "`[start:limit:stride]` in `slice=`")?;
            self.skip_trivia();
            let start = self.int("the slice start")?.0;
            self.expect(b':', "`:` after the slice start")?;
            self.skip_trivia();
            let limit = self.int("the slice limit")?.0;
            self.skip_trivia();
            let mut stride = 1;
            if self.eat(b':') {
                self.skip_trivia();
                let (s, span) = self.int("the slice stride")?;
                if s <= 0 {
                    return Err(self.error(span, "a slice stride must be positive"));
                }
                stride = s;
                self.skip_trivia();
            }
            self.expect(b']', "`]` to close the slice dimension")?;
            dims.push(SliceDim {
                start,
                limit,
                stride,
            });
            self.skip_trivia();
            if self.eat(b'}') {
                return Ok(dims);
            }
            self.expect(b',', "`,` or `}` in `slice=`")?;
        }
    }

    /// `low_high[_interior]` groups separated by `x`.
    pub(super) fn padding_attr(&mut self) -> PResult<Vec<PadDim>> {
        let groups = self.x_groups("padding", 2, 3)?;
        Ok(groups
            .into_iter()
            .map(|g| PadDim {
                low: g[0],
                high: g[1],
                interior: g.get(2).copied().unwrap_or(0),
            })
            .collect())
    }

    /// A list of `_`-separated integer groups joined by `x`: `1_4_1x4_8_0`.
    pub(super) fn x_groups(
        &mut self,
        what: &str,
        min: usize,
        max: usize,
    ) -> PResult<Vec<Vec<i64>>> {
        let mut groups = Vec::new();
        loop {
            let start = self.pos;
            let mut g = vec![self.int(&format!("an integer in `{what}`"))?.0];
            while self.eat(b'_') {
                g.push(self.int(&format!("an integer after `_` in `{what}`"))?.0);
            }
            if g.len() < min || g.len() > max {
                return Err(self.error(
                    start..self.pos,
                    format!(
                        "expected {min} to {max} `_`-separated integers per dimension in `{what}`"
                    ),
                ));
            }
            groups.push(g);
            if !self.eat(b'x') {
                return Ok(groups);
            }
        }
    }

    pub(super) fn window_attr(&mut self) -> PResult<Vec<WindowDim>> {
        let open = self.pos;
        self.expect(b'{', "`{` to open `window=`")?;
        let mut fields: Vec<(String, Vec<Vec<i64>>, Range<usize>)> = Vec::new();
        loop {
            self.skip_trivia();
            if self.eat(b'}') {
                break;
            }
            let (key, kspan) = self.name("a window field (`size`, `stride`, `pad`, `lhs_dilate`, `rhs_dilate`, `rhs_reversal`)")?;
            self.expect(b'=', &format!("`=` after window field `{key}`"))?;
            self.skip_trivia();
            let groups = match key.as_str() {
                "pad" => self.x_groups("pad", 2, 2)?,
                "size" | "stride" | "lhs_dilate" | "rhs_dilate" | "rhs_reversal" => self.x_groups(&key, 1, 1)?,
                _ => return Err(self.error(kspan, format!("unknown window field `{key}`; expected size, stride, pad, lhs_dilate, rhs_dilate or rhs_reversal"))),
            };
            fields.push((key, groups, kspan));
        }
        let rank = fields.iter().find(|f| f.0 == "size").map(|f| f.1.len());
        let Some(rank) = rank else {
            if fields.is_empty() {
                return Ok(Vec::new());
            }
            return Err(self.error(open..self.pos, "the window has no `size=`"));
        };
        let mut dims = vec![WindowDim::default(); rank];
        for (key, groups, span) in fields {
            if groups.len() != rank {
                return Err(self.error(
                    span,
                    format!(
                        "window field `{key}` has {} dimensions, `size` has {rank}",
                        groups.len()
                    ),
                ));
            }
            for (d, g) in dims.iter_mut().zip(groups) {
                match key.as_str() {
                    "size" => d.size = g[0],
                    "stride" => d.stride = g[0],
                    "pad" => (d.pad_low, d.pad_high) = (g[0], g[1]),
                    "lhs_dilate" => d.base_dilation = g[0],
                    "rhs_dilate" => d.window_dilation = g[0],
                    _ => d.reversal = g[0] != 0,
                }
            }
        }
        for d in &dims {
            if d.size < 0 || d.stride <= 0 || d.base_dilation <= 0 || d.window_dilation <= 0 {
                return Err(self.error(
                    open..self.pos,
                    "window sizes must be non-negative, strides and dilations positive",
                ));
            }
        }
        Ok(dims)
    }

    pub(super) fn dim_labels_attr(&mut self) -> PResult<ConvDimLabels> {
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'>' || c == b'?')
        {
            self.pos += 1;
        }
        let span = start..self.pos;
        let text = &self.src[span.clone()];
        parse_dim_labels(text).ok_or_else(|| {
            self.error(span, format!("malformed `dim_labels={text}`; expected e.g. `b01f_01io->b01f` (b = batch, f = feature, i/o = kernel input/output feature, digits = spatial)"))
        })
    }

    /// Skips an attribute value the analysis does not need and returns its text.
    pub(super) fn raw_value(&mut self) -> PResult<String> {
        self.skip_trivia();
        let start = self.pos;
        match self.peek() {
            Some(b'{') => {
                self.balanced(b'{', b'}')?;
            }
            Some(b'"') => {
                self.string()?;
            }
            _ => {
                while let Some(c) = self.peek() {
                    if c.is_ascii_whitespace() || c == b',' || c == b'}' || c == b')' {
                        break;
                    }
                    if c == b'[' || c == b'(' {
                        let close = if c == b'[' { b']' } else { b')' };
                        self.balanced(c, close)?;
                        continue;
                    }
                    self.pos += 1;
                }
                if start == self.pos {
                    return Err(self.error_here("expected an attribute value"));
                }
            }
        }
        Ok(self.src[start..self.pos].to_string())
    }
}

fn parse_dim_labels(text: &str) -> Option<ConvDimLabels> {
    let (inputs, output) = text.split_once("->")?;
    let (lhs, rhs) = inputs.split_once('_')?;
    let (lb, lf, ls) = labels(lhs, 'b', 'f')?;
    let (ki, ko, ks) = labels(rhs, 'i', 'o')?;
    let (ob, of, os) = labels(output, 'b', 'f')?;
    if ls.len() != ks.len() || ls.len() != os.len() {
        return None;
    }
    Some(ConvDimLabels {
        input_batch: lb,
        input_feature: lf,
        input_spatial: ls,
        kernel_input_feature: ki,
        kernel_output_feature: ko,
        kernel_spatial: ks,
        output_batch: ob,
        output_feature: of,
        output_spatial: os,
    })
}

/// Positions of `a`, `b` and the spatial digits 0, 1, ... in `s`.
fn labels(s: &str, a: char, b: char) -> Option<(usize, usize, Vec<usize>)> {
    let chars: Vec<char> = s.chars().collect();
    let pa = chars.iter().position(|&c| c == a)?;
    let pb = chars.iter().position(|&c| c == b)?;
    let n = chars.len().checked_sub(2)?;
    let mut spatial = vec![usize::MAX; n];
    for (i, &c) in chars.iter().enumerate() {
        if c == a || c == b {
            continue;
        }
        let k = c.to_digit(10)? as usize;
        if k >= n || spatial[k] != usize::MAX {
            return None;
        }
        spatial[k] = i;
    }
    if chars.iter().filter(|&&c| c == a).count() != 1
        || chars.iter().filter(|&&c| c == b).count() != 1
    {
        return None;
    }
    Some((pa, pb, spatial))
}
