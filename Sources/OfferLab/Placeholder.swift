public enum OfferLab {}
