import ModelLookupProbe
import LookupModelsA

// Links LookupModelsA, whose resources hold a Trips model.
ModelLookupProbe.run(linked: [LookupModelsA.label])
