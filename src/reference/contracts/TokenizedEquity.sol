// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// An ERC-20 token that represents an equity. Shares = balance * multiplier / 1e18.
contract TokenizedEquity {
    // Pausable feature ordinals.
    uint256 public constant TRANSFER = 0;
    uint256 public constant MINT = 1;
    uint256 public constant BURN = 2;
    uint256 public constant SEIZE = 3;

    address public immutable owner;
    string public name;
    string public symbol;
    string public isin;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    uint256 public multiplier; // 18-decimal fixed point; 1e18 = no adjustment
    address public priceFeed;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256[] private _paused;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event MultiplierUpdated(uint256 previous, uint256 current);
    event FeaturePaused(uint256 indexed feature);
    event FeatureUnpaused(uint256 indexed feature);

    error NotOwner();
    error FeatureIsPaused(uint256 feature);
    error InsufficientBalance();
    error InsufficientAllowance();
    error InvalidMultiplier();

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    modifier whenActive(uint256 feature) {
        if (isPaused(feature)) revert FeatureIsPaused(feature);
        _;
    }

    constructor(
        string memory name_,
        string memory symbol_,
        string memory isin_,
        uint8 decimals_,
        uint256 initialSupply,
        uint256 multiplier_,
        address priceFeed_,
        uint256[] memory pausedFeatures_
    ) {
        if (multiplier_ == 0) revert InvalidMultiplier();
        owner = msg.sender;
        name = name_;
        symbol = symbol_;
        isin = isin_;
        decimals = decimals_;
        multiplier = multiplier_;
        priceFeed = priceFeed_;
        totalSupply = initialSupply;
        balanceOf[msg.sender] = initialSupply;
        emit Transfer(address(0), msg.sender, initialSupply);
        for (uint256 i = 0; i < pausedFeatures_.length; i++) _pause(pausedFeatures_[i]);
    }

    function pausedFeatures() external view returns (uint256[] memory) {
        return _paused;
    }

    function isPaused(uint256 feature) public view returns (bool) {
        for (uint256 i = 0; i < _paused.length; i++) if (_paused[i] == feature) return true;
        return false;
    }

    function transfer(address to, uint256 value) external whenActive(TRANSFER) returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value)
        external whenActive(TRANSFER) returns (bool)
    {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance();
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function mint(address to, uint256 value) external onlyOwner whenActive(MINT) {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function burn(address from, uint256 value) external onlyOwner whenActive(BURN) {
        if (balanceOf[from] < value) revert InsufficientBalance();
        balanceOf[from] -= value;
        totalSupply -= value;
        emit Transfer(from, address(0), value);
    }

    function setMultiplier(uint256 multiplier_) external onlyOwner {
        if (multiplier_ == 0) revert InvalidMultiplier();
        emit MultiplierUpdated(multiplier, multiplier_);
        multiplier = multiplier_;
    }

    function setPriceFeed(address priceFeed_) external onlyOwner {
        priceFeed = priceFeed_;
    }

    function pause(uint256 feature) external onlyOwner {
        _pause(feature);
    }

    function unpause(uint256 feature) external onlyOwner {
        for (uint256 i = 0; i < _paused.length; i++) {
            if (_paused[i] == feature) {
                _paused[i] = _paused[_paused.length - 1];
                _paused.pop();
                emit FeatureUnpaused(feature);
                return;
            }
        }
    }

    function _pause(uint256 feature) private {
        if (isPaused(feature)) return; // idempotent, keeps the list free of duplicates
        _paused.push(feature);
        emit FeaturePaused(feature);
    }

    function _move(address from, address to, uint256 value) private {
        if (balanceOf[from] < value) revert InsufficientBalance();
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
