package dev.turnstile.bridge.adapter.http;

import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import io.netty.util.NetUtil;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's IP address, for the limit of failed authentications per address: the peer's, or,
 * when the peer is a trusted proxy ({@code bridge.http.trusted-proxies}), the rightmost address of
 * {@code X-Forwarded-For} that is not itself a trusted proxy. Addresses further left were written
 * by whoever sent the request and could name anyone; each trusted proxy appends the address it saw,
 * so the rightmost untrusted one is the last that a trusted party vouched for (what nginx's {@code
 * real_ip_recursive} does). With no trusted proxy, {@code X-Forwarded-For} is ignored.
 */
final class ClientAddresses {

  /** No proxy trusted: always the peer. */
  static final ClientAddresses PEER = new ClientAddresses(List.of());

  private static final String X_FORWARDED_FOR = "X-Forwarded-For";

  private final List<IpSubnetFilterRule> trusted;

  private ClientAddresses(List<IpSubnetFilterRule> trusted) {
    this.trusted = trusted;
  }

  /**
   * @param proxies addresses and ranges in CIDR notation ({@code 10.0.0.0/8}, {@code
   *     2001:db8::/32}, {@code 192.0.2.7})
   * @throws IllegalArgumentException for one that is neither
   */
  static ClientAddresses trusting(List<String> proxies) {
    List<IpSubnetFilterRule> rules = new ArrayList<>();
    for (String proxy : proxies) {
      int slash = proxy.indexOf('/');
      InetAddress address =
          NetUtil.createInetAddressFromIpAddressString(
              slash < 0 ? proxy.trim() : proxy.substring(0, slash).trim());
      if (address == null) {
        throw new IllegalArgumentException("not an IP address or CIDR range: " + proxy);
      }
      int bits = address instanceof Inet4Address ? 32 : 128;
      int prefix = slash < 0 ? bits : Integer.parseInt(proxy.substring(slash + 1).trim());
      if (prefix < 0 || prefix > bits) {
        throw new IllegalArgumentException("prefix out of 0.." + bits + ": " + proxy);
      }
      rules.add(new IpSubnetFilterRule(address, prefix, IpFilterRuleType.ACCEPT));
    }
    return new ClientAddresses(List.copyOf(rules));
  }

  /** The request's client address as text; {@code null} when the peer's is unknown. */
  String of(HttpServerRequest request) {
    SocketAddress peer = request.remoteAddress();
    if (peer == null || peer.hostAddress() == null) {
      return null;
    }
    String client = peer.hostAddress();
    if (!isTrusted(client)) {
      return client;
    }
    List<String> forwarded = request.headers().getAll(X_FORWARDED_FOR);
    for (int h = forwarded.size() - 1; h >= 0; h--) {
      String[] hops = forwarded.get(h).split(",");
      for (int i = hops.length - 1; i >= 0; i--) {
        InetAddress hop = NetUtil.createInetAddressFromIpAddressString(hops[i].trim());
        if (hop == null) {
          return client; // not an address: nothing to its left can be vouched for
        }
        client = hop.getHostAddress();
        if (!isTrusted(client)) {
          return client;
        }
      }
    }
    return client;
  }

  private boolean isTrusted(String address) {
    if (trusted.isEmpty()) {
      return false;
    }
    InetAddress parsed = NetUtil.createInetAddressFromIpAddressString(address);
    if (parsed == null) {
      return false;
    }
    InetSocketAddress socket = new InetSocketAddress(parsed, 0);
    return trusted.stream().anyMatch(rule -> rule.matches(socket));
  }
}
