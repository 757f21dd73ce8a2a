/// The absolute-lift interval m_t − m_c ± q·√(v_t/n_t + v_c/n_c).
///
/// `quantile` is q: z = Φ⁻¹(1 − alpha/2) for conversion, the Student t quantile at the Welch
/// degrees of freedom for ARPU (docs/statistics.md, Each treatment against control). Zero variances give a zero-width interval.
public func absoluteLiftInterval(control: SampleMoments, treatment: SampleMoments, quantile: Double) -> ConfidenceInterval {
    ConfidenceInterval(
        center: treatment.mean - control.mean, halfWidth: quantile * absoluteLiftStandardError(control: control, treatment: treatment))
}

/// √(v_t/n_t + v_c/n_c), the unpooled standard error of m_t − m_c.
public func absoluteLiftStandardError(control: SampleMoments, treatment: SampleMoments) -> Double {
    (treatment.varianceOfMean + control.varianceOfMean).squareRoot()
}

/// The relative lift m_t/m_c − 1; nil when m_c = 0.
public func relativeLift(control: SampleMoments, treatment: SampleMoments) -> Double? {
    guard control.mean != 0 else { return nil }
    return treatment.mean / control.mean - 1
}

/// The delta-method interval of the relative lift:
/// rel ± z·√(v_t/(n_t m_c²) + m_t² v_c/(n_c m_c⁴)), with z the normal quantile for both metrics.
///
/// - Returns: nil when m_c = 0. A negative m_c (net refunds) is allowed: the formula only uses
///   its square. Zero variances give a zero-width interval.
public func relativeLiftInterval(control: SampleMoments, treatment: SampleMoments, z: Double) -> ConfidenceInterval? {
    guard let lift = relativeLift(control: control, treatment: treatment),
        let se = relativeLiftStandardError(control: control, treatment: treatment)
    else { return nil }
    return ConfidenceInterval(center: lift, halfWidth: z * se)
}

/// The delta-method standard error of the relative lift, √(v_t/(n_t m_c²) + m_t² v_c/(n_c m_c⁴));
/// nil when m_c = 0.
public func relativeLiftStandardError(control: SampleMoments, treatment: SampleMoments) -> Double? {
    guard control.mean != 0 else { return nil }
    let ratio = treatment.mean / control.mean
    let variance = (treatment.varianceOfMean + ratio * ratio * control.varianceOfMean) / (control.mean * control.mean)
    return variance.squareRoot()
}
