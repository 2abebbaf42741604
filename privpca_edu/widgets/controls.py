"""Shared controls: one factory per knob the book turns, so every chapter looks and feels alike.

All sliders use ``continuous_update=False``: the figure updates when the mouse is released (or
a key is pressed), so a drag never queues a backlog of stale computations in the kernel.
Privacy parameters live on logarithmic sliders (:class:`ipywidgets.FloatLogSlider`): the
interesting range of ε and δ spans decades.
"""

from __future__ import annotations

import ipywidgets as W

__all__ = [
    "epsilon_slider",
    "delta_slider",
    "sparsity_slider",
    "contamination_slider",
    "n_samples_slider",
    "n_features_slider",
    "n_components_slider",
    "n_steps_slider",
    "angle_slider",
    "seed_picker",
    "method_picker",
    "N_SAMPLES_OPTIONS",
    "random_value",
]

_STYLE = {"description_width": "initial"}

#: Sample sizes offered by :func:`n_samples_slider`: roughly 1-2-5 steps per decade.
N_SAMPLES_OPTIONS = (5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)


def _layout(width):
    return W.Layout(width=width)


def epsilon_slider(value=1.0, *, min_exp=-2.0, max_exp=2.0, step=0.05, description="ε (privacy budget)",
                   width="360px"):
    """Make a log slider for ε.

    ε on a log slider from 10^min_exp to 10^max_exp (default 0.01 … 100).

    Parameters
    ----------
    value : float, default=1.0
        Starting ε.
    min_exp, max_exp : float, default=-2.0 and 2.0
        The slider spans 10^min_exp … 10^max_exp.
    step : float, default=0.05
        Step of the exponent.
    description : str, default="ε (privacy budget)"
        The label shown next to the control.
    width : str, default="360px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.FloatLogSlider
        The slider.
    """
    return W.FloatLogSlider(value=value, base=10, min=min_exp, max=max_exp, step=step, description=description,
                            readout_format=".3g", continuous_update=False, style=_STYLE, layout=_layout(width))


def delta_slider(value=1e-5, *, min_exp=-10.0, max_exp=-0.1, step=0.01, description="δ", width="360px"):
    """Make a log slider for δ.

    δ on a log slider from 10^min_exp to 10^max_exp (default 1e-10 … 0.79; δ < 1 always).

    Parameters
    ----------
    value : float, default=1e-5
        Starting δ.
    min_exp, max_exp : float, default=-10.0 and -0.1
        The slider spans 10^min_exp … 10^max_exp.
    step : float, default=0.01
        Step of the exponent.
    description : str, default="δ"
        The label shown next to the control.
    width : str, default="360px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.FloatLogSlider
        The slider.
    """
    return W.FloatLogSlider(value=value, base=10, min=min_exp, max=max_exp, step=step, description=description,
                            readout_format=".2g", continuous_update=False, style=_STYLE, layout=_layout(width))


def sparsity_slider(value=10, *, min=1, max=100, description="ŝ (rows kept)", width="320px"):
    """Make a slider for ŝ, the number of nonzero rows a sparse method keeps.

    Parameters
    ----------
    value : int, default=10
        Starting ŝ.
    min, max : int, default=1 and 100
        The slider's range.
    description : str, default="ŝ (rows kept)"
        The label shown next to the control.
    width : str, default="320px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.IntSlider
        The slider.
    """
    return W.IntSlider(value=value, min=min, max=max, step=1, description=description, continuous_update=False,
                       style=_STYLE, layout=_layout(width))


def contamination_slider(value=0.0, *, max=0.5, step=0.01, description="contamination (fraction)",
                         width="360px"):
    """Make a slider for the fraction of records replaced by outliers (robust methods).

    Parameters
    ----------
    value : float, default=0.0
        Starting fraction.
    max : float, default=0.5
        Largest fraction offered (the smallest is 0).
    step : float, default=0.01
        Step.
    description : str, default="contamination (fraction)"
        The label shown next to the control.
    width : str, default="360px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.FloatSlider
        The slider.
    """
    return W.FloatSlider(value=value, min=0.0, max=max, step=step, description=description, readout_format=".2f",
                         continuous_update=False, style=_STYLE, layout=_layout(width))


def n_samples_slider(value=1000, *, options=N_SAMPLES_OPTIONS, description="n (records)", width="360px"):
    """Make a slider for n over roughly log-spaced sizes (:data:`N_SAMPLES_OPTIONS`).

    Parameters
    ----------
    value : int, default=1000
        Starting n (added to the options if missing).
    options : sequence of int, default=N_SAMPLES_OPTIONS
        The sizes offered.
    description : str, default="n (records)"
        The label shown next to the control.
    width : str, default="360px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.SelectionSlider
        The slider.
    """
    options = tuple(options)
    if value not in options:
        options = tuple(sorted(set(options) | {value}))
    return W.SelectionSlider(options=options, value=value, description=description, continuous_update=False,
                             style=_STYLE, layout=_layout(width))


def n_features_slider(value=10, *, min=2, max=50, description="d (features)", width="300px"):
    """Make a slider for the dimension d.

    Parameters
    ----------
    value : int, default=10
        Starting d.
    min, max : int, default=2 and 50
        The slider's range.
    description : str, default="d (features)"
        The label shown next to the control.
    width : str, default="300px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.IntSlider
        The slider.
    """
    return W.IntSlider(value=value, min=min, max=max, step=1, description=description, continuous_update=False,
                       style=_STYLE, layout=_layout(width))


def n_components_slider(value=1, *, min=1, max=10, description="k (components)", width="300px"):
    """Make a slider for the number of components k.

    Parameters
    ----------
    value : int, default=1
        Starting k.
    min, max : int, default=1 and 10
        The slider's range.
    description : str, default="k (components)"
        The label shown next to the control.
    width : str, default="300px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.IntSlider
        The slider.
    """
    return W.IntSlider(value=value, min=min, max=max, step=1, description=description, continuous_update=False,
                       style=_STYLE, layout=_layout(width))


def n_steps_slider(value=10, *, min=1, max=50, description="T (steps)", width="300px"):
    """Make a slider for T, the number of adaptive releases (iterations) the budget is split over.

    Parameters
    ----------
    value : int, default=10
        Starting T.
    min, max : int, default=1 and 50
        The slider's range.
    description : str, default="T (steps)"
        The label shown next to the control.
    width : str, default="300px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.IntSlider
        The slider.
    """
    return W.IntSlider(value=value, min=min, max=max, step=1, description=description, continuous_update=False,
                       style=_STYLE, layout=_layout(width))


def angle_slider(value=0.0, *, min=-90.0, max=90.0, step=1.0, description="angle (°)", width="320px"):
    """Make a slider for an angle in degrees.

    Parameters
    ----------
    value : float, default=0.0
        Starting angle (degrees).
    min, max : float, default=-90.0 and 90.0
        The slider's range (degrees).
    step : float, default=1.0
        Step (degrees).
    description : str, default="angle (°)"
        The label shown next to the control.
    width : str, default="320px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.FloatSlider
        The slider.
    """
    return W.FloatSlider(value=value, min=min, max=max, step=step, description=description, readout_format=".0f",
                         continuous_update=False, style=_STYLE, layout=_layout(width))


def seed_picker(value=0, *, description="seed", width="160px"):
    """Make a box for a random seed (non-negative int); the figure updates on Enter or when the box loses focus.

    Parameters
    ----------
    value : int, default=0
        Starting seed.
    description : str, default="seed"
        The label shown next to the control.
    width : str, default="160px"
        CSS width of the control.

    Returns
    -------
    ipywidgets.BoundedIntText
        The box.
    """
    return W.BoundedIntText(value=value, min=0, max=2**31 - 1, description=description, continuous_update=False,
                            style=_STYLE, layout=_layout(width))


def method_picker(options, value=None, *, description="method", kind="dropdown", width="auto"):
    """Make a picker for one method: a Dropdown (many options) or ToggleButtons (few).

    Parameters
    ----------
    options : sequence
        Values, or ``(label, value)`` pairs.
    value : object, optional
        The starting value (default: the first option's).
    description : str, default="method"
        The label shown next to the control.
    kind : {"dropdown", "toggle"}, default="dropdown"
        A Dropdown (many options) or ToggleButtons (few).
    width : str, default="auto"
        CSS width of a Dropdown.

    Returns
    -------
    ipywidgets.Dropdown or ipywidgets.ToggleButtons
        The picker.

    Raises
    ------
    ValueError
        If ``kind`` is neither.
    """
    options = list(options)
    first = options[0][1] if isinstance(options[0], tuple) else options[0]
    value = first if value is None else value
    if kind == "toggle":
        return W.ToggleButtons(options=options, value=value, description=description, style=_STYLE)
    if kind != "dropdown":
        raise ValueError(f"kind must be 'dropdown' or 'toggle', got {kind!r}")
    return W.Dropdown(options=options, value=value, description=description, style=_STYLE, layout=_layout(width))


def random_value(control, rng):
    """A random value on ``control``'s own grid, different from its current one: what a student
    dragging sliders produces (benchmarks/bench_widgets.py and the blitting tests walk with it).

    Log sliders step in the exponent, other sliders by ``step``, a seed box gets a new seed,
    pickers a random option.  ``rng`` is a :class:`numpy.random.Generator`.
    """
    value = control.value
    for _ in range(100):
        if isinstance(control, W.FloatLogSlider):
            steps = int(round((control.max - control.min) / control.step))
            value = control.base ** (control.min + control.step * rng.integers(0, steps + 1))
        elif isinstance(control, (W.IntSlider, W.FloatSlider)):
            steps = int(round((control.max - control.min) / control.step))
            value = type(control.value)(control.min + control.step * rng.integers(0, steps + 1))
        elif isinstance(control, (W.BoundedIntText, W.IntText)):  # a seed box: a new seed
            value = int(rng.integers(0, 1000))
        else:  # SelectionSlider, Dropdown, ToggleButtons
            labels = list(control.options)
            choice = labels[rng.integers(len(labels))]
            value = choice[1] if isinstance(choice, tuple) else choice
        if value != control.value:
            return value
    return value
