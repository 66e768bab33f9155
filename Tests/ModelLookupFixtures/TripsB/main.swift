import ModelLookupProbe
import LookupModelsB

// Links LookupModelsB, whose resources hold a Trips model.
ModelLookupProbe.run(linked: [LookupModelsB.label])
