/// A library whose resources hold a `Trips` model (entity Trip: name).
public enum LookupModelsA {
    public static let label = "A"
}
