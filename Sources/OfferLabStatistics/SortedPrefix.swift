extension RandomAccessCollection where Index == Int {
    /// In a sorted collection, the number of leading elements for which `belongs` holds (it must
    /// hold for a prefix). O(log n).
    @inlinable package func prefixCount(where belongs: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low - startIndex
    }
}
