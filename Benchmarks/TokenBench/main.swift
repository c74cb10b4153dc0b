import JWTKit
@main struct TokenBench { static func main() {} }
