from __future__ import annotations

import base64
from typing import Any

import matplotlib.pyplot as plt

from .conftest import call

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def run(ns: dict[str, Any], code: str) -> Any:
    return await call(ns, "run_python", {"code": code})


def png(data: str) -> bytes:
    return base64.b64decode(data)


async def test_a_new_figure_is_shown_to_the_user_as_png_and_described_briefly_to_the_model(
        ns: dict[str, Any]) -> None:
    result = await run(ns, "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('sales')")
    assert result.ok
    assert result.content == "[1 figure: 640x480 PNG shown to the user]"
    assert result.display is not None
    assert png(result.display["image/png"]).startswith(PNG_SIGNATURE)


async def test_figures_are_closed_after_they_are_shown(ns: dict[str, Any]) -> None:
    await run(ns, "import matplotlib.pyplot as plt\nplt.plot([1, 2])")
    assert plt.get_fignums() == []


async def test_several_figures_come_as_a_list_with_their_sizes(ns: dict[str, Any]) -> None:
    code = ("import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3))\nplt.plot([1, 2])\n"
            "plt.figure(figsize=(2, 2))\nplt.plot([2, 1])")
    result = await run(ns, code)
    assert result.content == "[2 figures: 400x300, 200x200 PNG shown to the user]"
    assert result.display is not None
    images = result.display["image/png"]
    assert isinstance(images, list)
    assert len(images) == 2
    assert all(png(image).startswith(PNG_SIGNATURE) for image in images)


async def test_a_figure_returned_as_the_last_value_is_shown_once(ns: dict[str, Any]) -> None:
    result = await run(ns, "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.bar(['a', 'b'], [1, 2])\nfig")
    assert result.content == "[1 figure: 640x480 PNG shown to the user]"
    assert result.display is not None
    assert isinstance(result.display["image/png"], str)


async def test_figures_open_before_the_code_ran_are_left_alone(ns: dict[str, Any]) -> None:
    earlier = plt.figure()
    try:
        result = await run(ns, "import matplotlib.pyplot as plt\nplt.figure()\nplt.plot([1])")
        assert result.content == "[1 figure: 640x480 PNG shown to the user]"
        assert plt.get_fignums() == [earlier.number]
    finally:
        plt.close(earlier)


async def test_stdout_and_a_figure_come_together(ns: dict[str, Any]) -> None:
    result = await run(ns, "import matplotlib.pyplot as plt\nprint('plotting')\nplt.plot([1, 2])")
    assert result.content == "stdout:\nplotting\n\n[1 figure: 640x480 PNG shown to the user]"


async def test_a_figure_made_before_an_error_is_still_shown_and_closed(ns: dict[str, Any]) -> None:
    result = await run(ns, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nraise KeyError('column')")
    assert not result.ok
    assert result.content.endswith("KeyError: 'column'\n\n[1 figure: 640x480 PNG shown to the user]")
    assert result.display is not None
    assert "image/png" in result.display
    assert plt.get_fignums() == []
