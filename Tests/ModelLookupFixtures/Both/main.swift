import LookupModelsA
import LookupModelsB
import ModelLookupProbe

// Links two libraries whose different models are both named Trips.
ModelLookupProbe.run(linked: [LookupModelsA.label, LookupModelsB.label])
