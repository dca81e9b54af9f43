"""Training and calibration of the parameters and weights citefix ships (`python -m training.NAME`)."""
