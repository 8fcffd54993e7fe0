//! The MCP server's handle on the project: the library's [`Service`] with
//! background freshness and the defaults when the config file is broken.

use std::ops::Deref;

use anyhow::Result;

use crate::search::hybrid::Hybrid;
use crate::search::semantic::SemanticSearcher;
use crate::service::{Freshness, Service};
use crate::store::Store;

/// Server state shared by all calls.
pub struct ServerState {
    svc: Service,
}

impl Deref for ServerState {
    type Target = Service;
    fn deref(&self) -> &Service {
        &self.svc
    }
}

impl ServerState {
    pub fn new(svc: Service) -> ServerState {
        ServerState { svc }
    }

    pub fn with_store<R>(&self, f: impl FnOnce(&Store) -> Result<R>) -> Result<Option<R>> {
        self.svc.with_store(f)
    }

    pub fn with_hybrid<R>(&self, f: impl FnOnce(&mut Hybrid) -> Result<R>) -> Result<R> {
        self.svc.with_hybrid(f)
    }

    pub fn with_semantic<R>(
        &self,
        f: impl FnOnce(&mut SemanticSearcher) -> Result<R>,
    ) -> Result<R> {
        self.svc.with_semantic(f)
    }

    pub fn refresh_for_query(&self) -> Freshness {
        self.svc.ensure_fresh().unwrap_or_else(|e| {
            tracing::warn!("could not refresh the index: {e:#}");
            self.svc.freshness()
        })
    }
}
