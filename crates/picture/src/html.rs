//! Self-contained HTML pages that hold several pictures with their text:
//! no scripts, no external files, so a page opens anywhere.

use std::fmt::Write;

use crate::svg::escape;

/// An HTML page being written.
#[derive(Clone, Debug)]
pub struct Page {
    title: String,
    body: String,
}

impl Page {
    /// An empty page titled `title`.
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            body: String::new(),
        }
    }

    /// A section heading (`level` 1 to 4).
    pub fn heading(&mut self, level: u8, text: &str, id: Option<&str>) -> &mut Page {
        let level = level.clamp(1, 4);
        let id = id.map_or(String::new(), |i| format!(" id=\"{}\"", escape(i)));
        let _ = writeln!(self.body, "<h{level}{id}>{}</h{level}>", escape(text));
        self
    }

    /// A paragraph of text.
    pub fn paragraph(&mut self, text: &str) -> &mut Page {
        let _ = writeln!(self.body, "<p>{}</p>", escape(text));
        self
    }

    /// Preformatted text (a lowered program).
    pub fn preformatted(&mut self, text: &str) -> &mut Page {
        let _ = writeln!(self.body, "<pre>{}</pre>", escape(text));
        self
    }

    /// A table with a header row.
    pub fn table(&mut self, header: &[&str], rows: &[Vec<String>]) -> &mut Page {
        self.body.push_str("<table>\n<tr>");
        for h in header {
            let _ = write!(self.body, "<th>{}</th>", escape(h));
        }
        self.body.push_str("</tr>\n");
        for r in rows {
            self.body.push_str("<tr>");
            for c in r {
                let _ = write!(self.body, "<td>{}</td>", escape(c));
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</table>\n");
        self
    }

    /// An SVG picture, inline.
    pub fn picture(&mut self, svg: &str) -> &mut Page {
        let _ = writeln!(self.body, "<figure>\n{}</figure>", svg);
        self
    }

    /// The body written so far (no `<html>` or style): what a notebook
    /// shows inline.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The finished document.
    pub fn finish(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n{}</body>\n</html>\n",
            escape(&self.title),
            STYLE,
            self.body
        )
    }
}

const STYLE: &str = "body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 14px; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 12px; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; font-family: 'DejaVu Sans Mono', monospace; }
figure { margin: 8px 0; overflow-x: auto; }
";
