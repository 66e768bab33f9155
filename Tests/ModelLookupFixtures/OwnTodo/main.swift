import ModelLookupProbe

// Its own target holds a model named Todo, like the example app's model beside it.
ModelLookupProbe.run(linked: [])
