public enum OfferLabGenerate {}
