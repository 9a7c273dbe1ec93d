// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Chainlink AggregatorV3Interface, as consumers read it.
interface AggregatorV3Interface {
    function decimals() external view returns (uint8);
    function description() external view returns (string memory);
    function version() external view returns (uint256);
    function getRoundData(uint80 roundId)
        external view returns (uint80, int256, uint256, uint256, uint80);
    function latestRoundData()
        external view returns (uint80, int256, uint256, uint256, uint80);
}

/// A NAV feed whose owner publishes rounds. updatedAt is supplied by the publisher (not
/// block.timestamp) so a round can carry the time the NAV was struck, which may lag the chain.
contract PriceFeed is AggregatorV3Interface {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    address public immutable owner;
    string private _description;
    uint80 private _latestRound;
    mapping(uint80 => Round) private _rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NotOwner();
    error NoData();

    constructor(string memory description_, int256 answer, uint256 updatedAt) {
        owner = msg.sender;
        _description = description_;
        _publish(answer, updatedAt);
    }

    function decimals() external pure returns (uint8) {
        return 8;
    }

    function description() external view returns (string memory) {
        return _description;
    }

    function version() external pure returns (uint256) {
        return 4;
    }

    function publish(int256 answer, uint256 updatedAt) external {
        if (msg.sender != owner) revert NotOwner();
        _publish(answer, updatedAt);
    }

    function getRoundData(uint80 roundId)
        public view returns (uint80, int256, uint256, uint256, uint80)
    {
        Round storage r = _rounds[roundId];
        if (r.updatedAt == 0) revert NoData();
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData(_latestRound);
    }

    function _publish(int256 answer, uint256 updatedAt) private {
        uint80 roundId = _latestRound + 1;
        _rounds[roundId] = Round(answer, updatedAt, updatedAt);
        _latestRound = roundId;
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
