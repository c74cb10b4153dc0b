import Testing

@testable import Gateway

/// Which address a request is limited by behind a load balancer.
@Suite struct TrustedProxiesTests {
    @Test func rangesAreParsedAndMatchedBitByBit() throws {
        let proxies = try TrustedProxies(parsing: " 10.0.0.0/8, 192.0.2.7 ,2001:db8::/32,172.16.0.0/12,, fd00::1")
        for inside in ["10.1.2.3", "192.0.2.7", "2001:db8:1::5", "172.31.255.255", "fd00::1", "::ffff:10.9.9.9"] {
            #expect(proxies.contains(inside), "\(inside)")
        }
        for outside in ["11.0.0.1", "192.0.2.8", "2001:db9::1", "172.32.0.0", "fd00::2", "unknown", "", "10.0.0"] {
            #expect(!proxies.contains(outside), "\(outside)")
        }
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").contains("203.0.113.1"))
        #expect(!(try TrustedProxies(parsing: "0.0.0.0/0").contains("2001:db8::1")))
        #expect(try TrustedProxies(parsing: "").isEmpty)
        for bad in ["10.0.0.0/33", "::/129", "proxy.internal", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/-1", "1.2.3.4/x"]
        {
            #expect(throws: (any Error).self, "\(bad)") { try TrustedProxies(parsing: bad) }
        }
    }

    @Test func theClientIsTheFirstAddressFromTheEndThatIsNoProxy() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 2001:db8::/32")
        // Not a proxy: whatever it says about itself is ignored.
        #expect(proxies.client(peer: "198.51.100.4", forwardedFor: ["203.0.113.9"]) == "198.51.100.4")
        // A proxy with nothing forwarded: the proxy.
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: []) == "10.0.0.2")
        // One hop; two hops; the client's own claims before its address prove nothing.
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["203.0.113.9, 10.4.4.4"]) == "203.0.113.9")
        #expect(
            proxies.client(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 8.8.8.8", "203.0.113.9 ,10.4.4.4"])
                == "203.0.113.9")
        // Ports and brackets, IPv6.
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["203.0.113.9:5122"]) == "203.0.113.9")
        #expect(proxies.client(peer: "2001:db8::2", forwardedFor: ["[2001:db9::7]:443"]) == "2001:db9::7")
        #expect(proxies.client(peer: "::ffff:10.0.0.2", forwardedFor: ["2001:db9::7"]) == "2001:db9::7")
        // Garbage stops the walk at the last proxy; every entry a proxy: the first of them.
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["203.0.113.9, unknown, 10.4.4.4"]) == "10.4.4.4")
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["<script>"]) == "10.0.0.2")
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["10.7.7.7, 10.4.4.4"]) == "10.7.7.7")
    }
}
