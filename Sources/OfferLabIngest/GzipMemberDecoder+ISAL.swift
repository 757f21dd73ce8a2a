import CIsal

/// ISA-L's `isal_inflate` on gzip members (the only file that holds an ISA-L inflate state).
final class IsalMemberDecoder: GzipMemberDecoder {
    private var state: OpaquePointer?

    deinit {
        if let state { offerlab_isal_destroy(state) }
    }

    func startMember() throws(InflaterUnavailable) {
        if let state {
            offerlab_isal_reset(state)
            return
        }
        guard let created = offerlab_isal_create() else {
            throw InflaterUnavailable(
                message: Inflater.isalAvailable ? "cannot allocate an ISA-L inflater" : "ISA-L is not available (libisal.so.2)")
        }
        state = created
    }

    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> InflateStep {
        guard let state else { return InflateStep(consumed: 0, produced: 0, status: .failed("no member started")) }
        var consumed = 0
        var produced = 0
        var ended: Int32 = 0
        let code = offerlab_isal_inflate(
            state, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &consumed, &produced, &ended)
        let status: InflateStep.Status
        switch code {
        case 0: status = ended != 0 ? .memberEnded : .ok
        case Int32(OFFERLAB_ISAL_NEED_DICT): status = .failed("a member needs a preset dictionary")
        case Int32(OFFERLAB_ISAL_INVALID_BLOCK): status = .failed("invalid block type")
        case Int32(OFFERLAB_ISAL_INVALID_SYMBOL): status = .failed("invalid code in deflate data")
        case Int32(OFFERLAB_ISAL_INVALID_LOOKBACK): status = .failed("invalid distance too far back")
        case Int32(OFFERLAB_ISAL_INVALID_WRAPPER): status = .failed("incorrect header check")
        case Int32(OFFERLAB_ISAL_UNSUPPORTED_METHOD): status = .failed("unknown compression method")
        // ISA-L checks the CRC-32 and the length together.
        case Int32(OFFERLAB_ISAL_INCORRECT_CHECKSUM): status = .failed("incorrect data check (CRC-32 or length)")
        default: status = .failed("ISA-L error \(code)")
        }
        return InflateStep(consumed: consumed, produced: produced, status: status)
    }
}
