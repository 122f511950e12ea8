//! The clap tree's own checks.

use std::net::{Ipv4Addr, SocketAddr};

use super::*;
use clap::CommandFactory;

#[test]
fn command_tree_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn listen_takes_the_common_forms() {
    let loopback = |port| SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    assert_eq!(parse_listen("127.0.0.1:9000"), Ok(loopback(9000)));
    assert_eq!(parse_listen("localhost:8080"), Ok(loopback(8080)));
    assert_eq!(parse_listen("LOCALHOST:8080"), Ok(loopback(8080)));
    assert_eq!(parse_listen(":8080"), Ok(loopback(8080)));
    assert_eq!(parse_listen("8080"), Ok(loopback(8080)));
    assert_eq!(
        parse_listen("[::1]:8080"),
        Ok("[::1]:8080".parse().unwrap())
    );
    assert!(parse_listen("example.org:8080").is_err());
    assert!(parse_listen(":http").is_err());
    assert!(parse_listen("99999").is_err());
}
