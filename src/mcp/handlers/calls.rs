//! `callers` and `callees`: the call graph of a function or method, from
//! the service, fitted to the answer's budget.

use anyhow::Result;

use super::Lookup;
use crate::mcp::catalogue::CallGraphArgs;
use crate::mcp::out::{
    Answer, BUDGET_CHARS, CallGraphOut, EdgeOut, OVERHEAD_CHARS, Page, Paging, answer,
    past_end_hint,
};
use crate::mcp::render;
use crate::search::graph::Direction;
use crate::search::{BEST_LINE_CHARS, bound_line};
use crate::service::{GraphRequest, Service};

pub fn call_graph(svc: &Service, direction: Direction, args: CallGraphArgs) -> Result<Answer> {
    let CallGraphArgs {
        name,
        depth,
        limit,
        offset,
        detail,
    } = args;
    let tool = match direction {
        Direction::Callers => "callers",
        Direction::Callees => "callees",
    };
    let req = GraphRequest {
        name: name.clone(),
        direction,
        depth,
        offset,
        limit,
    };
    let mut look = Lookup::from(svc.call_graph(&req)?);
    let Some(result) = look.found.take() else {
        let out = CallGraphOut {
            name,
            direction: tool.into(),
            targets: Vec::new(),
            edges: Vec::new(),
            total: 0,
            resolved: 0,
            via_base: 0,
            name_only: 0,
            paging: Paging::new(
                detail,
                0,
                None,
                Some("no index yet: use find_references or search_keyword for now".into()),
                look.index(),
            ),
        };
        return answer(&out, render::call_graph(&out));
    };
    let many_depths = result.depth > 1;
    let edges = result.edges.into_iter().map(|e| EdgeOut {
        at: format!("{}:{}", e.path, e.line),
        from: e.from,
        to: e.to,
        resolution: e.resolution.as_str().into(),
        depth: (many_depths || detail).then_some(e.depth),
        defined_at: e.defined_at,
        qualifier: e.qualifier.filter(|_| detail),
        text: e.text.map(|t| {
            if detail {
                t
            } else {
                bound_line(&t, BEST_LINE_CHARS)
            }
        }),
    });
    let page = Page::new(edges, 0, None, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown_edges = page.items.len();
    let shown = page.shown();
    let next = (offset + shown < result.total).then_some(offset + shown);
    let hint = if let Some(next) = next {
        Some(format!(
            "edges {}-{} of {} shown: call again with offset: {next}, lower depth, or qualify the name (`Class.method`)",
            offset + 1,
            offset + shown,
            result.total
        ))
    } else if result.total == 0 && offset == 0 {
        Some(match direction {
            Direction::Callers => format!(
                "nothing in the index calls `{name}`; find_references lists every use of the name"
            ),
            Direction::Callees => format!("`{name}` calls nothing the index records"),
        })
    } else {
        result.build_output_left_out.explained()
    };
    let out = CallGraphOut {
        name: result.name,
        direction: tool.into(),
        targets: crate::search::graph::target_lines(&result.targets),
        edges: page.items,
        total: result.total as u64,
        resolved: result.resolved as u64,
        via_base: result.via_base as u64,
        name_only: result.name_only as u64,
        paging: Paging::new(
            detail,
            offset,
            next,
            hint.or_else(|| past_end_hint(offset, shown_edges, result.total)),
            look.index(),
        )
        .with_redacted(result.redacted),
    };
    answer(&out, render::call_graph(&out))
}
