/// A library whose resources hold another `Trips` model (entity Trip: title, days).
public enum LookupModelsB {
    public static let label = "B"
}
