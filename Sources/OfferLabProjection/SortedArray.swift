extension Array where Element == Double {
    /// In an ascending array, the number of leading elements for which `belongs` holds (it must
    /// hold for a prefix). O(log n).
    func prefixCount(where belongs: (Double) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
