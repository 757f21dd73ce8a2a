#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Gauss–Legendre quadrature rules on [−1, 1] (internal machinery).
struct GaussLegendre: Sendable {
    /// Nodes in (−1, 1), ascending.
    let nodes: [Double]
    /// Weights, summing to 2.
    let weights: [Double]

    /// The 20-point rule: exact for polynomials up to degree 39.
    static let twenty = GaussLegendre(order: 20)

    /// The n-point rule, nodes found by Newton's method on Pₙ from Chebyshev-like starting points
    /// (converged to the last bit; weights 2/((1 − x²)Pₙ′(x)²)).
    init(order n: Int) {
        var nodes = [Double](repeating: 0, count: n)
        var weights = [Double](repeating: 0, count: n)
        for i in 0..<(n + 1) / 2 {
            var x = cos(Double.pi * (Double(i) + 0.75) / (Double(n) + 0.5))
            var derivative = 0.0
            for _ in 0..<100 {
                var p0 = 1.0
                var p1 = x
                for k in 2...n {
                    let p2 = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
                    p0 = p1
                    p1 = p2
                }
                derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                let step = p1 / derivative
                x -= step
                if abs(step) <= 1e-17 { break }
            }
            let weight = 2 / ((1 - x * x) * derivative * derivative)
            nodes[i] = -x
            nodes[n - 1 - i] = x
            weights[i] = weight
            weights[n - 1 - i] = weight
        }
        self.nodes = nodes
        self.weights = weights
    }
}
