"""Why a model decides as it does: attributions, attention, linear and tree contributions (issue 10)."""
