import OfferLabEvents

extension RejectedMoney {
    /// "3 malformed log lines named money: USD 1007.99 (-7.99 of it as negative prices), EUR 20
    /// (1 more whose amount cannot be read)": the warning's and the report's words.
    package var summary: String {
        let amounts = self.amounts.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { currency, amount in
            let total = "\(currency) \(CSVWriter.number(Double(amount.micros) / 1_000_000))"
            guard amount.negativeMicros < 0 else { return total }
            return total + " (\(CSVWriter.number(Double(amount.negativeMicros) / 1_000_000)) of it as negative prices)"
        }
        let lines = "\(self.lines) malformed log line\(self.lines == 1 ? "" : "s") named a price or a money event"
        switch (amounts.isEmpty, unreadable) {
        case (true, _): return "\(lines), of amounts that cannot be read"
        case (false, 0): return "\(lines): \(amounts.joined(separator: ", "))"
        case (false, let unreadable):
            return "\(lines): \(amounts.joined(separator: ", ")), and \(unreadable) of an amount that cannot be read"
        }
    }
}
