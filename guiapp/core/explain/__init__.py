"""Why a model decides as it does: word attributions (exact linear and tree contributions, integrated
gradients for Transformers, leaving words out for any model, combined models through their parts),
the Transformer's attention, how faithful an explanation is, the words each category relies on over
many documents, the test documents with every model's answer, and the explanation jobs with their
time estimate and cache."""
