import ModelLookupProbe

// Links no model at all; other targets' bundles sit beside it in the build folder.
ModelLookupProbe.run(linked: [])
