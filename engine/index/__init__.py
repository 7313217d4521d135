"""The Small LM Index: vendor-reported scores with sources, a latent-ability fit, validation, hardware."""
